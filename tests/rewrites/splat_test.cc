// fuse_concat_splat, eliminate_splat_broadcast, fuse_relu_clip and the Dropout with ratio 0:
// each with a positive case (exact values), a case where it must not fire, a graph-output case
// and a subgraph case.
#include <gtest/gtest.h>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "ir/verifier.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

const ir::Node* find_op(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  g.for_each_node([&](const ir::Node* n) {
    if (!found && n->op_type == op) found = n;
  });
  return found;
}

std::vector<int64_t> ints(const ir::Value* v) { return ops::to_int64_vector(*ops::FoldContext::constant(v)); }

// ---------------------------------------------------------------- fuse_concat_splat

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

// ---------------------------------------------------------------- eliminate_splat_broadcast

TEST(EliminateSplatBroadcast, ExpandedScalarBecomesAScalar) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,3,16] x) => (float[batch,3,16] y) {
  v = Constant <value = float {3}> ()
  sh = Constant <value = int64[2] {3, 16}> ()
  e = Expand(v, sh)
  y = Mul(x, e)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  const ir::Node* mul = find_op(*s.model->graph, "Mul");
  ASSERT_TRUE(mul);
  const ir::Tensor* c = ops::FoldContext::constant(mul->input(1));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank(), 0);
  EXPECT_EQ(c->to_vector<float>(), std::vector<float>{3.0f});
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s, 2, {{"batch", 2}});
}

TEST(EliminateSplatBroadcast, SplatThatGrowsTheOutputStays) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[16] x) => (float[3,16] y) {
  v = Constant <value = float {3}> ()
  sh = Constant <value = int64[2] {3, 16}> ()
  e = Expand(v, sh)
  y = Add(x, e)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Expand"), 1u);
  expect_same_outputs(s);
}

TEST(EliminateSplatBroadcast, OfTwoSplatsOneStays) {
  // Each splat alone is covered by the other, but once one is a scalar the other gives the
  // output's shape and stays (the shapes are read before the first change).
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,m] x) => (float[n,m] y) {
  sh = Shape(x)
  a = ConstantOfShape <value = float[1] {2}> (sh)
  v = Constant <value = float {3}> ()
  b = Expand(v, sh)
  y = Add(a, b)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape") + count_ops(*s.model->graph, "Expand"), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"n", 2}, {"m", 3}});
}

TEST(EliminateSplatBroadcast, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,8] x, bool c) => (float[n,8] y) {
  y = If(c) <then_branch = t () => (float[n,8] a) {
      sh = Constant <value = int64[1] {8}> ()
      half = ConstantOfShape <value = float[1] {0.5}> (sh)
      a = Pow(x, half)
    }, else_branch = e () => (float[n,8] b) { b = Identity(x) }>
}
)");
  const ir::Node* iff = find_op(*s.model->graph, "If");
  ASSERT_TRUE(iff);
  const ir::Graph& then_g = *iff->subgraphs()[0];
  EXPECT_EQ(count_ops(then_g, "ConstantOfShape"), 0u);
  expect_same_outputs(s, 2, {{"n", 2}});
}

// ---------------------------------------------------------------- fuse_relu_clip

TEST(FuseReluClip, ClipOfReluIsOneClip) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y) {
  r = Relu(x)
  lo = Constant <value = float {-1}> ()
  hi = Constant <value = float {0.25}> ()
  y = Clip(r, lo, hi)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  const ir::Node* clip = find_op(*s.model->graph, "Clip");
  ASSERT_TRUE(clip);
  EXPECT_EQ(clip->input(0)->name(), "x");
  EXPECT_EQ(ops::FoldContext::constant(clip->input(1))->to_vector<float>(), std::vector<float>{0.0f});
  EXPECT_EQ(ops::FoldContext::constant(clip->input(2))->to_vector<float>(), std::vector<float>{0.25f});
  expect_same_outputs(s);
}

TEST(FuseReluClip, ReluOfClipAsGraphOutputWithAttributes) {
  // Opset 10: bounds are attributes; Relu(Clip(x, -2, -1)) is 0 everywhere, Clip(x, 0, 0).
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 10]>
g (float[6] x) => (float[6] y) {
  c = Clip <min = -2.0, max = -1.0> (x)
  y = Relu(c)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  const ir::Node* clip = find_op(*s.model->graph, "Clip");
  ASSERT_TRUE(clip);
  EXPECT_EQ(clip->attr_float("min", -1), 0.0f);
  EXPECT_EQ(clip->attr_float("max", -1), 0.0f);
  EXPECT_EQ(clip->output(0)->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseReluClip, SharedReluOrUnknownBoundStays) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, float hi) => (float[4] y, float[4] r, float[4] z) {
  r = Relu(x)
  lo = Constant <value = float {0}> ()
  six = Constant <value = float {6}> ()
  y = Clip(r, lo, six)
  q = Relu(x)
  z = Clip(q, lo, hi)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Relu"), 1u);  // the two Relu merge; it is an output
  EXPECT_EQ(count_ops(*s.model->graph, "Clip"), 2u);
  expect_same_outputs(s);
}

TEST(FuseReluClip, InsideALoopBody) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, int64 n) => (float[4] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <body = b (int64 i, bool c, float[4] acc) => (bool co, float[4] out) {
      co = Identity(c)
      one = Constant <value = float {1}> ()
      d = Sub(acc, one)
      r = Relu(d)
      hi = Constant <value = float {20}> ()
      out = Clip(r, , hi)
    }>
}
)");
  const ir::Node* loop = find_op(*s.model->graph, "Loop");
  ASSERT_TRUE(loop);
  EXPECT_EQ(count_ops(*loop->subgraphs()[0], "Relu"), 0u);
  expect_same_outputs(s);
}

// ---------------------------------------------------------------- Dropout with ratio 0

TEST(DropoutRatioZero, IdentityWhateverTheTrainingMode) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x, float[2,4] z) => (float[2,4] y, float[2,4] w) {
  r = Constant <value = float {0}> ()
  t = Constant <value = bool {1}> ()
  d = Dropout(x, r, t)
  y = Relu(d)
  nz = Neg(z)
  w = Dropout(nz, r, t)
}
)");
  // (A Dropout straight from a graph input to a graph output would stay, as an Identity does:
  // the output's name cannot move onto the input.)
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 0u);
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "w");
  expect_same_outputs(s);
}

TEST(DropoutRatioZero, NonZeroRatioOrUsedMaskStays) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x) => (float[2,4] y, bool[2,4] m) {
  r = Constant <value = float {0}> ()
  h = Constant <value = float {0.5}> ()
  t = Constant <value = bool {1}> ()
  d = Dropout(x, h, t)
  y, m = Dropout(d, r, t)
}
)",
                         {"eliminate_nop_ops"});
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 2u);
}

TEST(DropoutRatioZero, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x, bool c) => (float[3] y) {
  r = Constant <value = float {0}> ()
  t = Constant <value = bool {1}> ()
  y = If(c) <then_branch = a () => (float[3] p) { d = Dropout(x, r, t)
                                                   p = Neg(d) },
             else_branch = b () => (float[3] q) { q = Identity(x) }>
}
)");
  const ir::Node* iff = find_op(*s.model->graph, "If");
  ASSERT_TRUE(iff);
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Dropout"), 0u);
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
