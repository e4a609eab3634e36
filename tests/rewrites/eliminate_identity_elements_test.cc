// eliminate_identity_elements: x + 0, x * 1, ... fold to x (the op files' folds): the node count
// and the outputs; cases where a fold must not fire; graph-output and subgraph cases.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_folded;
using test::expect_same_outputs;
using test::run_fold_pass;

struct IdentityCase {
  const char* name;
  const char* body;
};

TEST(EliminateIdentityElements, EachIdentityElement) {
  const IdentityCase cases[] = {
      {"x+0", "z = Constant <value = float[3] {0, 0, 0}> ()\n a = Add(x, z)"},
      {"0+x", "z = Constant <value = float {0}> ()\n a = Add(z, x)"},
      {"x-0", "z = Constant <value = float {0}> ()\n a = Sub(x, z)"},
      {"x*1", "o = Constant <value = float[1] {1}> ()\n a = Mul(x, o)"},
      {"1*x", "o = Constant <value = float {1}> ()\n a = Mul(o, x)"},
      {"x/1", "o = Constant <value = float {1}> ()\n a = Div(x, o)"},
      {"x**1", "o = Constant <value = float {1}> ()\n a = Pow(x, o)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto s = run_fold_pass("eliminate_identity_elements", std::string(c.body) + "\n y = Relu(a)",
                           "(float[2,3] x) => (float[2,3] y)");
    expect_folded(s, 1);
  }
}

TEST(EliminateIdentityElements, AndTrueOrFalse) {
  auto s = run_fold_pass(
      "eliminate_identity_elements",
      "t = Constant <value = bool {1}> ()\n f = Constant <value = bool {0}> ()\n a = And(x, t)\n o = Or(a, "
      "f)\n y = Not(o)",
      "(bool[4] x) => (bool[4] y)");
  expect_folded(s, 1);
}

TEST(EliminateIdentityElements, BroadcastToLargerShapeStays) {
  // x * 1 where the 1 has shape [4, 3]: the output is larger than x, the Mul must stay.
  auto s = run_fold_pass("eliminate_identity_elements",
                         "o = Constant <value = float[4,3] {1,1,1,1,1,1,1,1,1,1,1,1}> ()\n a = Mul(x, o)\n y = Relu(a)",
                         "(float[3] x) => (float[4,3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);
  expect_same_outputs(s);
}

TEST(EliminateIdentityElements, NonIdentityConstantStays) {
  auto s =
      run_fold_pass("eliminate_identity_elements", "o = Constant <value = float {2}> ()\n a = Mul(x, o)\n y = Relu(a)",
                    "(float[3] x) => (float[3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);
}

TEST(EliminateIdentityElements, GraphOutput) {
  auto s =
      run_fold_pass("eliminate_identity_elements", "r = Relu(x)\n z = Constant <value = float {0}> ()\n y = Add(r, z)",
                    "(float[3] x) => (float[3] y)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(EliminateIdentityElements, InsideIfBranch) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { one = Constant <value = float {1}> ()  m = Mul(x, one)  o1 = Neg(m) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                               {"infer_shapes", "eliminate_identity_elements", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Mul"), std::string::npos) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
