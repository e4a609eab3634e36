// eliminate_common_subexpressions: equal nodes merge; other attributes and random ops stay; two
// graph outputs are not merged; inside an If branch.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

TEST(EliminateCommonSubexpressions, MergesEqualNodes) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Transpose <perm = [0, 1]> (x)
  b = Transpose <perm = [0, 1]> (x)
  y = Add(a, b)
}
)",
                         {"eliminate_common_subexpressions", "eliminate_dead_nodes"});
  EXPECT_EQ(s.nodes(), 2u);
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u);
  expect_same_outputs(s);
}

TEST(EliminateCommonSubexpressions, DifferentAttributesOrRandomOpsStay) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
  a = LeakyRelu <alpha = 0.1> (x)
  b = LeakyRelu <alpha = 0.2> (x)
  r1 = RandomUniformLike(x)
  r2 = RandomUniformLike(x)
  y = Add(a, b)
  z = Sub(r1, r2)
}
)",
                         {"eliminate_common_subexpressions"});
  EXPECT_EQ(s.nodes(), 6u);
}

TEST(EliminateCommonSubexpressions, TwoGraphOutputsAreNotMerged) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y, float[2] z) {
  y = Relu(x)
  z = Relu(x)
}
)",
                         {"eliminate_common_subexpressions"});
  EXPECT_EQ(s.nodes(), 2u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "z");
}

TEST(EliminateCommonSubexpressions, InsideIfBranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { p = Exp(x)  q = Exp(x)  o1 = Add(p, q) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                         {"eliminate_common_subexpressions", "eliminate_dead_nodes"});
  EXPECT_EQ(count_ops(*s.model->graph->first_node()->subgraphs()[0], "Exp"), 1u);
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
