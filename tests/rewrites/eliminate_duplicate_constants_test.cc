// eliminate_duplicate_constants: equal initializers and Constants are one; the same bytes of
// another type, training statistics and graph inputs' defaults stay.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

TEST(EliminateDuplicateConstants, MergesEqualInitializersAndConstants) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y)
<float[3] w1 = {1, 2, 3}, float[3] w2 = {1, 2, 3}>
{
  c = Constant <value = float[3] {1, 2, 3}> ()
  a = Add(x, w1)
  b = Mul(a, w2)
  y = Sub(b, c)
}
)",
                         {"eliminate_duplicate_constants", "eliminate_dead_nodes"});
  EXPECT_EQ(s.model->graph->initializers().size(), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "Constant"), 0u);
  expect_same_outputs(s);
}

TEST(EliminateDuplicateConstants, SameBytesDifferentTypeStay) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int32[2] x, float[2] z) => (int32[2] y, float[2] w)
<int32[2] a = {0, 0}, float[2] b = {0, 0}>
{
  y = Add(x, a)
  w = Add(z, b)
}
)",
                         {"eliminate_duplicate_constants"});
  EXPECT_EQ(s.model->graph->initializers().size(), 2u);
}

TEST(EliminateDuplicateConstants, TrainingStatisticsAreNotShared) {
  // BatchNormalization in training mode updates its running variance (ONNX Runtime in place):
  // the variance {1, 2} must not become the same tensor as the scale {1, 2}; the equal bias and
  // the Add's constant still merge.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[3,2] x) => (float[3,2] y)
<float[2] sc = {1, 2}, float[2] b = {0.5, -1}, float[2] mu = {0.1, 0}, float[2] var = {1, 2}, float[2] c = {0.5, -1}>
{
  t, rm, rv = BatchNormalization <training_mode = 1> (x, sc, b, mu, var)
  y = Add(t, c)
}
)",
                         {"eliminate_duplicate_constants"});
  EXPECT_EQ(s.model->graph->initializers().size(), 4u);
  const ir::Node* bn = nullptr;
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "BatchNormalization") bn = n;
  });
  ASSERT_NE(bn, nullptr);
  EXPECT_NE(bn->input(1), bn->input(4));
  EXPECT_EQ(bn->input(4)->name(), "var");
  expect_same_outputs(s);
}

TEST(EliminateDuplicateConstants, GraphInputDefaultsStay) {
  // An initializer that is also a graph input can be overridden by the caller: keep it.
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, float[2] w1) => (float[2] y)
<float[2] w1 = {1, 2}, float[2] w2 = {1, 2}>
{
  a = Add(x, w1)
  y = Mul(a, w2)
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyOptions o;
  o.only = {"eliminate_duplicate_constants"};
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  EXPECT_EQ(m->graph->initializers().size(), 2u);
}

}  // namespace
}  // namespace onnxtrim
