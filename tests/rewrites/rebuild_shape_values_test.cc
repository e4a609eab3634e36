// rebuild_shape_values: a small integer vector known element by element is rebuilt from earlier
// values and constants when that removes nodes; a positive case with exact values, cases where
// it must not fire, a graph-output case and a subgraph case.
#include <gtest/gtest.h>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::find_op;
using test::simplify_text;

const std::vector<std::string> kRebuildPasses = {"rebuild_shape_values", "eliminate_dead_nodes",
                                                 "eliminate_unused_initializers"};

// torch's x.expand(B, -1, -1): the target is known to be [B, 1, 1] whatever computes it.
const char* kClassToken = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,4,8] x) => (float[batch,5,8] y) {
  cls = Constant <value = float[1,1,8] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  s = Shape(x)
  i0 = Constant <value = int64 {0}> ()
  b = Gather <axis = 0> (s, i0)
  ax = Constant <value = int64[1] {0}> ()
  bu = Unsqueeze(b, ax)
  m1 = Constant <value = int64[2] {-1, -1}> ()
  want = Concat <axis = 0> (bu, m1)
  minus = Constant <value = int64[3] {-1, -1, -1}> ()
  eq = Equal(want, minus)
  ones = Constant <value = int64[3] {1, 1, 1}> ()
  target = Where(eq, ones, want)
  e = Expand(cls, target)
  y = Concat <axis = 1> (e, x)
}
)";

TEST(RebuildShapeValues, WhereOfAKnownConditionBecomesOneConcat) {
  auto s = simplify_text(kClassToken, kRebuildPasses);
  EXPECT_EQ(count_ops(*s.model->graph, "Where"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "Equal"), 0u);
  const ir::Node* e = find_op(*s.model->graph, "Expand");
  ASSERT_TRUE(e);
  const ir::Node* cat = e->input(1)->producer();
  ASSERT_TRUE(cat && cat->op_type == "Concat");
  ASSERT_EQ(cat->num_inputs(), 2u);
  EXPECT_EQ(cat->input(0)->name(), "bu");
  const ir::Tensor* ones = ops::FoldContext::constant(cat->input(1));
  ASSERT_TRUE(ones);
  EXPECT_EQ(ops::to_int64_vector(*ones), (std::vector<int64_t>{1, 1}));
  // Shape, Gather, Unsqueeze, Concat, Expand, Concat: what reads the batch, and the output
  // (the Constant nodes stay: fold_constants does not run here).
  EXPECT_EQ(s.nodes() - count_ops(*s.model->graph, "Constant"), 6u);
  expect_same_outputs(s, 2, {{"batch", 3}});
}

TEST(RebuildShapeValues, SameElementsComputedTwiceBecomeOneValue) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,6] x) => (float[n,6] y) {
  s = Shape(x)
  t = Shape(x)
  z = Constant <value = int64 {0}> ()
  u = Add(t, z)
  y = Reshape(x, u)
}
)",
                         kRebuildPasses);
  const ir::Node* r = find_op(*s.model->graph, "Reshape");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->input(1)->producer()->op_type, "Shape");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 0u);
  expect_same_outputs(s, 2, {{"n", 4}});
}

TEST(RebuildShapeValues, NothingToGainOrUnknownElementsStay) {
  // A Concat already, and an element (Size) that no earlier 1-element value holds.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,6] x) => (float[n,2,3] y, int64[2] w) {
  s = Shape(x)
  i0 = Constant <value = int64[1] {0}> ()
  b = Gather <axis = 0> (s, i0)
  six = Constant <value = int64[2] {2, 3}> ()
  c = Concat <axis = 0> (b, six)
  y = Reshape(x, c)
  k = Size(x)
  ax = Constant <value = int64[1] {0}> ()
  ku = Unsqueeze(k, ax)
  one = Constant <value = int64[1] {1}> ()
  w0 = Concat <axis = 0> (ku, one)
  w = Identity(w0)
}
)",
                         kRebuildPasses);
  EXPECT_EQ(count_ops(*s.model->graph, "Concat"), 2u);
  EXPECT_EQ(count_ops(*s.model->graph, "Size"), 1u);
  expect_same_outputs(s, 2, {{"n", 2}});
}

TEST(RebuildShapeValues, GraphOutputKeepsItsName) {
  // The known vector is itself a graph output: it stays as it is computed.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,4] x) => (int64[2] t) {
  s = Shape(x)
  i0 = Constant <value = int64[1] {0}> ()
  bu = Gather <axis = 0> (s, i0)
  m1 = Constant <value = int64[1] {-1}> ()
  want = Concat <axis = 0> (bu, m1)
  minus = Constant <value = int64[2] {-1, -1}> ()
  eq = Equal(want, minus)
  ones = Constant <value = int64[2] {1, 1}> ()
  t = Where(eq, ones, want)
}
)",
                         kRebuildPasses);
  EXPECT_EQ(count_ops(*s.model->graph, "Where"), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "t");
  expect_same_outputs(s, 2, {{"batch", 3}});
}

TEST(RebuildShapeValues, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,4,8] x, float[batch,5,8] z, bool c) => (float[batch,5,8] y) {
  y = If(c) <then_branch = t () => (float[batch,5,8] a) {
      cls = Constant <value = float[1,1,8] {1, 2, 3, 4, 5, 6, 7, 8}> ()
      s = Shape(x)
      i0 = Constant <value = int64[1] {0}> ()
      bu = Gather <axis = 0> (s, i0)
      m1 = Constant <value = int64[2] {-1, -1}> ()
      want = Concat <axis = 0> (bu, m1)
      minus = Constant <value = int64[3] {-1, -1, -1}> ()
      eq = Equal(want, minus)
      ones = Constant <value = int64[3] {1, 1, 1}> ()
      target = Where(eq, ones, want)
      e = Expand(cls, target)
      a = Concat <axis = 1> (e, x)
    }, else_branch = f () => (float[batch,5,8] b) { b = Identity(z) }>
}
)",
                         kRebuildPasses);
  const ir::Node* branch = find_op(*s.model->graph, "If");
  ASSERT_TRUE(branch);
  EXPECT_EQ(count_ops(*branch->subgraphs()[0], "Where"), 0u);
  EXPECT_EQ(count_ops(*branch->subgraphs()[0], "Equal"), 0u);
  EXPECT_EQ(count_ops(*branch->subgraphs()[0], "Concat"), 2u);
  expect_same_outputs(s, 2, {{"batch", 3}});
}

}  // namespace
}  // namespace onnxtrim
