// fuse_matmul_bn: Gemm or 2-D MatMul then BatchNormalization over the columns is one Gemm; over
// the rows, or with a shared product, it stays; a graph output; inside an If branch.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::expect_same_outputs_loop;
using test::gemm_model;
using test::run;

TEST(FuseMatmulBn, GemmThenBatchNormIsOneGemm) {
  auto s = run(gemm_model("m = Gemm <transB = 1, alpha = 0.5, beta = 2.0> (x, wt, crow)\n"
                          "n = BatchNormalization(m, s, bb, mu, var)\n y = Relu(n)"),
               "fuse_matmul_bn");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 0u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseMatmulBn, MatMulThenBatchNormBecomesGemm) {
  auto s =
      run(gemm_model("m = MatMul(x, w)\n n = BatchNormalization(m, s, bb, mu, var)\n y = Relu(n)"), "fuse_matmul_bn");
  EXPECT_EQ(count_ops(*s.model->graph, "Gemm"), 1u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "MatMul"), 0u);
  expect_same_outputs(s);
}

TEST(FuseMatmulBn, BatchNormOverRowsStays) {
  // [2,4,3] x [3,4] -> [2,4,4]: BatchNormalization's axis 1 is the rows, not the features.
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4,3] x) => (float[2,4,4] y)
<float[3,4] w4 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
 float[4] s4 = {1, 2, 0.5, 1.5}, float[4] bb4 = {0.1, 0, -0.2, 0.3}, float[4] mu4 = {0.2, -0.1, 0, 0.1}, float[4] var4 = {1, 0.5, 2, 1.5}>
{ m = MatMul(x, w4)
  y = BatchNormalization(m, s4, bb4, mu4, var4) }
)",
               "fuse_matmul_bn");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 1u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseMatmulBn, SharedProductStays) {
  auto s = run(gemm_model("m = Gemm(x, w, c)\n n = BatchNormalization(m, s, bb, mu, var)\n y = Add(n, m)"),
               "fuse_matmul_bn");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 1u);
}

TEST(FuseMatmulBn, GraphOutputKeepsItsName) {
  auto s = run(gemm_model("m = Gemm(x, w)\n y = BatchNormalization(m, s, bb, mu, var)"), "fuse_matmul_bn");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->first_node()->op_type, "Gemm");
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseMatmulBn, InsideIfBranch) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[4,3] x) => (float[4,2] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2] s = {1.5, 0.5}, float[2] bb = {0.1, -0.3}, float[2] mu = {0.2, -0.1}, float[2] var = {1, 0.5}>
{
  y = If(k) <
    then_branch = t1 () => (float[4,2] o1) { p = MatMul(x, w)  n = BatchNormalization(p, s, bb, mu, var)  o1 = Relu(n) },
    else_branch = t2 () => (float[4,2] o2) { q = Gemm(x, w)  n2 = BatchNormalization(q, s, bb, mu, var)  o2 = Neg(n2) }
  >
}
)",
               "fuse_matmul_bn");
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "BatchNormalization"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "BatchNormalization"), 0u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
