// eliminate_identity: chains of Identity go; an Identity from a graph input to a graph output
// stays; a graph output keeps its name; inside an If branch.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

TEST(EliminateIdentity, RemovesChains) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Identity(x)
  b = Identity(a)
  c = Relu(b)
  y = Neg(c)
}
)",
                         {"eliminate_identity", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed,
            "g (float[2,3] x) => (float[2,3] y)\n"
            "{\n"
            "  c = Relu (x)\n"
            "  y = Neg (c)\n"
            "}\n");
  expect_same_outputs(s);
}

TEST(EliminateIdentity, KeepsIdentityFromInputToOutput) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Identity(x)
}
)",
                         {"eliminate_identity"});
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->inputs()[0]->name(), "x");
}

TEST(EliminateIdentity, GraphOutputKeepsItsName) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  r = Relu(x)
  y = Identity(r)
}
)",
                         {"eliminate_identity"});
  EXPECT_EQ(s.printed,
            "g (float[2] x) => (float[2] y)\n"
            "{\n"
            "  y = Relu (x)\n"
            "}\n");
  expect_same_outputs(s);
}

TEST(EliminateIdentity, InsideIfBranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { i1 = Identity(x)  o1 = Neg(i1) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                         {"eliminate_identity"});
  EXPECT_EQ(count_ops(*s.model->graph->first_node()->subgraphs()[0], "Identity"), 0u);
  EXPECT_EQ(s.printed.find("Identity"), std::string::npos) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
