// fuse_gemm_mul: a scalar multiplying a Gemm goes into alpha and beta, a column vector into the
// weights and C; a row vector or non-constant weights stay; graph output; If branch.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::expect_same_outputs_loop;
using test::find_op;
using test::gemm_model;
using test::run;

TEST(FuseGemmMul, ScalarGoesIntoAlphaAndBeta) {
  auto s = run(gemm_model("three = Constant <value = float {3}> ()\n m = Gemm <alpha = 0.5, beta = 2.0> (x, w, crow)\n "
                          "a = Mul(m, three)\n y = Relu(a)"),
               "fuse_gemm_mul");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  const ir::Node* gemm = find_op(*s.model->graph, "Gemm");
  EXPECT_EQ(gemm->attr_float("alpha", 1.0f), 1.5f);
  EXPECT_EQ(gemm->attr_float("beta", 1.0f), 6.0f);
  expect_same_outputs(s);
}

TEST(FuseGemmMul, ColumnVectorScalesWeightsAndC) {
  auto s =
      run(gemm_model("m = Gemm <transB = 1, beta = 2.0> (x, wt, crow)\n a = Mul(k, m)\n y = Relu(a)"), "fuse_gemm_mul");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseGemmMul, RowVectorStays) {
  auto s = run(gemm_model("m = Gemm(x, w, c)\n a = Mul(m, krow)\n y = Relu(a)"), "fuse_gemm_mul");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u) << s.printed;
}

TEST(FuseGemmMul, ColumnVectorWithNonConstantWeightsStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] x, float[3,2] w) => (float[4,2] y)
<float[2] k = {2, 3}>
{ m = Gemm(x, w)
  y = Mul(m, k) }
)",
               "fuse_gemm_mul");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u) << s.printed;
}

TEST(FuseGemmMul, GraphOutputKeepsItsName) {
  auto s = run(gemm_model("m = Gemm(x, w, c)\n y = Mul(m, k)"), "fuse_gemm_mul");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseGemmMul, InsideIfBranch) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool b, float[4,3] x) => (float[4,2] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2] c = {0.1, -0.2}, float[2] k = {2, -0.5}>
{
  three = Constant <value = float {3}> ()
  y = If(b) <
    then_branch = t1 () => (float[4,2] o1) { p = Gemm(x, w, c)  o1 = Mul(p, k) },
    else_branch = t2 () => (float[4,2] o2) { q = Gemm(x, w, c)  o2 = Mul(three, q) }
  >
}
)",
               "fuse_gemm_mul");
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Mul"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "Mul"), 0u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
