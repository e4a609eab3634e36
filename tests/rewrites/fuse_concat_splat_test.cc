// fuse_concat_splat: a Concat of splats (stored, expanded or generated) of one value is one splat,
// and a splat beside a tensor a Pad; positive cases with exact values, cases where it must not
// fire, a Loop body and a chain inside a branch.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::find_op;
using test::simplify_text;

std::vector<int64_t> ints(const ir::Value* v) { return ops::to_int64_vector(*ops::FoldContext::constant(v)); }

TEST(FuseConcatSplat, ChannelPadOfZerosIsOnePad) {
  // tf2onnx: Concat(x, ConstantOfShape([batch, 2, 4, 4])) along the channels, the batch read
  // from x at run time.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[batch,3,4,4] x) => (float[batch,5,4,4] y) {
  shape = Shape(x)
  s0 = Constant <value = int64[1] {0}> ()
  s1 = Constant <value = int64[1] {1}> ()
  b = Slice(shape, s0, s1)
  tail = Constant <value = int64[3] {2, 4, 4}> ()
  ps = Concat <axis = 0> (b, tail)
  zeros = ConstantOfShape <value = float[1] {0.5}> (ps)
  y = Concat <axis = 1> (x, zeros)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  const ir::Node* pad = find_op(*s.model->graph, "Pad");
  ASSERT_TRUE(pad);
  EXPECT_EQ(ints(pad->input(1)), (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0, 0}));
  EXPECT_EQ(ops::FoldContext::constant(pad->input(2))->to_vector<float>(), std::vector<float>{0.5f});
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // graph output keeps its name
  expect_same_outputs(s, 2, {{"batch", 2}});
}

TEST(FuseConcatSplat, SplatsOnBothSidesOfStoredOrExpanded) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64[2,3] x) => (int64[2,7] y) {
  c = Constant <value = int64[2,1] {7, 7}> ()
  v = Constant <value = int64 {7}> ()
  sh = Constant <value = int64[2] {2, 3}> ()
  e = Expand(v, sh)
  t = Concat <axis = -1> (c, x, e)
  y = Relu(t)
}
)");
  const ir::Node* pad = find_op(*s.model->graph, "Pad");
  ASSERT_TRUE(pad);
  EXPECT_EQ(ints(pad->input(1)), (std::vector<int64_t>{0, 1, 0, 3}));
  EXPECT_EQ(ints(pad->input(2)), std::vector<int64_t>{7});
  EXPECT_EQ(count_ops(*s.model->graph, "Concat"), 0u);
  expect_same_outputs(s);
}

TEST(FuseConcatSplat, DifferentValuesOrTwoTensorsStay) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[2,1] z) => (float[2,5] y, float[2,5] w) {
  a = Constant <value = float[2,1] {1, 1}> ()
  b = Constant <value = float[2,1] {2, 2}> ()
  y = Concat <axis = 1> (a, x, b)
  w = Concat <axis = 1> (x, a, z)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Concat"), 2u);
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u);
}

TEST(FuseConcatSplat, InsideALoopBody) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, int64 n) => (float[2,3] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <body = b (int64 i, bool c, float[2,3] acc) => (bool co, float[2,3] out) {
      co = Identity(c)
      sh = Constant <value = int64[2] {2, 1}> ()
      ones = ConstantOfShape <value = float[1] {1}> (sh)
      cat = Concat <axis = 1> (ones, acc)
      s0 = Constant <value = int64[1] {0}> ()
      s3 = Constant <value = int64[1] {3}> ()
      ax = Constant <value = int64[1] {1}> ()
      out = Slice(cat, s0, s3, ax)
    }>
}
)");
  const ir::Node* loop = find_op(*s.model->graph, "Loop");
  ASSERT_TRUE(loop);
  const ir::Graph& body = *loop->subgraphs()[0];
  EXPECT_EQ(count_ops(body, "Concat"), 0u);
  EXPECT_EQ(count_ops(body, "Pad"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConcatSplat, ConcatOfSplatsReadingAnotherOne) {
  // The outer Concat reads the inner one, which is rewritten first: the outer's Pad reads the
  // inner's Pad, not the inner Concat's erased output (issue 30: a match made before the inner
  // rewrite named that value, freed by the next purge). `inner` is read twice, once as an output.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,7] y, float[2,4] inner) {
  a = Constant <value = float[2,1] {0, 0}> ()
  sh = Constant <value = int64[2] {2, 3}> ()
  b = ConstantOfShape <value = float[1] {0}> (sh)
  inner = Concat <axis = 1> (a, x)
  y = Concat <axis = 1> (inner, b)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Concat"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 2u);
  const ir::Value* y = s.model->graph->outputs()[0];
  ASSERT_TRUE(y->producer() && y->producer()->op_type == "Pad");
  EXPECT_EQ(y->producer()->input(0), s.model->graph->outputs()[1]);  // the outer Pad reads the inner one
  EXPECT_EQ(ints(y->producer()->input(1)), (std::vector<int64_t>{0, 0, 0, 3}));
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "inner");
  EXPECT_TRUE(ir::verify_for_write(*s.model).is_ok());
  expect_same_outputs(s);
}

TEST(FuseConcatSplat, ChainOfThreeInsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[2,3] x) => (float[2,6] y) {
  y = If(k) <then_branch = t () => (float[2,6] o) {
      a = Constant <value = float[2,1] {1, 1}> ()
      c1 = Concat <axis = 1> (x, a)
      c2 = Concat <axis = 1> (a, c1)
      o = Concat <axis = 1> (c2, a)
    }, else_branch = e () => (float[2,6] o2) {
      a2 = Constant <value = float[2,3] {2, 2, 2, 2, 2, 2}> ()
      o2 = Concat <axis = 1> (x, a2)
    }>
}
)");
  const ir::Node* iff = find_op(*s.model->graph, "If");
  ASSERT_TRUE(iff);
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Concat"), 0u);
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "Concat"), 0u);
  EXPECT_TRUE(ir::verify_for_write(*s.model).is_ok());
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
