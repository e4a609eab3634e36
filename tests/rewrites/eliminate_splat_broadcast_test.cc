// eliminate_splat_broadcast: a splat broadcast by an elementwise op it does not grow becomes a
// scalar; a positive case with exact values, cases where it must not fire, a branch.
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

}  // namespace
}  // namespace onnxtrim
