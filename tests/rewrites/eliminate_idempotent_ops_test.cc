// eliminate_idempotent_ops: an op applied twice where once gives the same (f(f(x)) = f(x)), and
// Neg or Not twice, which is x (the op files' folds): the node count and the outputs; cases where
// it must not fire; graph-output and subgraph cases.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_folded;
using test::expect_same_outputs;
using test::run_fold_pass;

TEST(EliminateIdempotentOps, EachIdempotentOp) {
  for (const char* op : {"Relu", "Ceil", "Floor", "Round", "Sign", "Abs"}) {
    SCOPED_TRACE(op);
    auto s =
        run_fold_pass("eliminate_idempotent_ops", std::string("a = ") + op + "(x)\n b = " + op + "(a)\n y = Neg(b)",
                      "(float[2,3] x) => (float[2,3] y)");
    expect_folded(s, 2);
  }
}

TEST(EliminateIdempotentOps, NegNegAndNotNot) {
  auto s = run_fold_pass("eliminate_idempotent_ops", "a = Neg(x)\n b = Neg(a)\n y = Relu(b)",
                         "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
  auto t = run_fold_pass("eliminate_idempotent_ops", "a = Not(x)\n b = Not(a)\n y = Xor(b, x)",
                         "(bool[4] x) => (bool[4] y)");
  expect_folded(t, 1);
}

TEST(EliminateIdempotentOps, ReciprocalPairStays) {
  // 1/(1/x) is not x in floating point (two roundings): not folded.
  auto s = run_fold_pass("eliminate_idempotent_ops", "a = Reciprocal(x)\n b = Reciprocal(a)\n y = Relu(b)",
                         "(float[3] x) => (float[3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reciprocal"), 2u);
}

TEST(EliminateIdempotentOps, GraphOutput) {
  auto s = run_fold_pass("eliminate_idempotent_ops", "a = Relu(x)\n y = Relu(a)", "(float[3] x) => (float[3] y)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(EliminateIdempotentOps, InsideIfBranch) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { a = Abs(x)  b = Abs(a)  o1 = Neg(b) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                               {"infer_shapes", "eliminate_idempotent_ops", "eliminate_dead_nodes"});
  EXPECT_EQ(count_ops(*s.model->graph->first_node()->subgraphs()[0], "Abs"), 1u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
