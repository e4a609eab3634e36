// Fusions: fuse_conv_bn, fuse_conv_add, fuse_conv_mul. A positive case with values, a case
// where the fusion must not fire, a graph-output case and a subgraph case for each.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

const char* kConvHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,5,5] x) => (float[2,4,5,5] y)
<float[4,3,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4, 0.3, -0.2, 0.1, 0.2, 0.5, -0.1,
  0.2, 0.1, 0.3, -0.2, 0.4, 0.1, 0.2, -0.3, 0.1, 0.2, 0.3, 0.1, -0.1, 0.2, 0.4, 0.1, -0.2, 0.3, 0.1, 0.2, -0.1,
  0.3, 0.2, 0.1, -0.4, 0.2, 0.1, 0.3, 0.2, -0.1, 0.1, 0.2, 0.3, 0.1, -0.2, 0.4, 0.2, 0.1, -0.3, 0.2, 0.1, 0.3,
  0.2, -0.1, 0.1, 0.4, 0.2, 0.1},
 float[4] b = {0.1, 0.2, -0.1, 0.3},
 float[4,1,1] c = {1.5, -2, 0.5, 3},
 float[1,1,5] row = {1, 2, 3, 4, 5},
 float[4] s = {1, 2, 0.5, 1.5}, float[4] bb = {0.1, 0, -0.2, 0.3}, float[4] mu = {0.2, -0.1, 0, 0.1}, float[4] var = {1, 0.5, 2, 1.5}>
)";

test::Simplified fuse(const std::string& pass, const std::string& body) {
  return test::simplify_text(std::string(kConvHead) + "{\n" + body + "\n}\n", {"infer_shapes", pass, "eliminate_dead_nodes"});
}

TEST(FuseConvAdd, PerChannelConstantBecomesBias) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Add(y0, c)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 0u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u);
  expect_same_outputs(s);
}

TEST(FuseConvAdd, ConstantAlongAnotherAxisStays) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Add(y0, row)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConvAdd, SharedConvOutputStays) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Add(y0, c)\n y = Mul(a, y0)");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u);
}

TEST(FuseConvAdd, GraphOutputKeepsItsName) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w)\n y = Add(y0, c)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->first_node()->op_type, "Conv");
  expect_same_outputs(s);
}

TEST(FuseConvMul, PerChannelScaleGoesIntoWeightsAndBias) {
  auto s = fuse("fuse_conv_mul", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Mul(c, y0)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseConvMul, ConstantAlongAnotherAxisStays) {
  auto s = fuse("fuse_conv_mul", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Mul(y0, row)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);
}

TEST(FuseConvMul, GraphOutputKeepsItsName) {
  auto s = fuse("fuse_conv_mul", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n y = Mul(y0, c)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseConvBn, ConvThenBatchNormIsOneConv) {
  auto s = fuse("fuse_conv_bn", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n n = BatchNormalization(y0, s, bb, mu, var)\n y = Relu(n)");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseConvBn, SharedConvOutputStays) {
  auto s = fuse("fuse_conv_bn", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n n = BatchNormalization(y0, s, bb, mu, var)\n y = Add(n, y0)");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 1u);
}

TEST(FuseConvBn, GraphOutputKeepsItsName) {
  auto s = fuse("fuse_conv_bn", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n y = BatchNormalization(y0, s, bb, mu, var)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(Fusions, InsideIfBranch) {
  auto s = test::simplify_text(std::string(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[2,3,5,5] x) => (float[2,4,5,5] y)
<float[4,3,1,1] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2}, float[4,1,1] c = {1.5, -2, 0.5, 3},
 float[4] s = {1, 2, 0.5, 1.5}, float[4] bb = {0.1, 0, -0.2, 0.3}, float[4] mu = {0.2, -0.1, 0, 0.1}, float[4] var = {1, 0.5, 2, 1.5}>
{
  y = If(k) <
    then_branch = t1 () => (float[2,4,5,5] o1) { p = Conv(x, w)  q = Mul(p, c)  r = Add(q, c)  o1 = Relu(r) },
    else_branch = t2 () => (float[2,4,5,5] o2) { p2 = Conv(x, w)  n2 = BatchNormalization(p2, s, bb, mu, var)  o2 = Neg(n2) }
  >
}
)"), {"infer_shapes", "fuse_conv_bn", "fuse_conv_add", "fuse_conv_mul", "eliminate_dead_nodes"});
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 2u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[1]->num_nodes(), 2u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim

namespace onnxtrim {
namespace {

const char* kMm = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[IN] x) => (float[OUT] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2] b = {0.1, -0.2}, float[3,2] full = {1, 2, 3, 4, 5, 6}>
)";

test::Simplified mm(const std::string& in, const std::string& out, const std::string& body) {
  std::string head = kMm;
  head.replace(head.find("IN"), 2, in);
  head.replace(head.find("OUT"), 3, out);
  return test::simplify_text(head + "{\n" + body + "\n}\n", {"infer_shapes", "fuse_matmul_add", "eliminate_dead_nodes"});
}

TEST(FuseMatmulAdd, TwoDimensionalBecomesGemm) {
  auto s = mm("4,3", "4,2", "m = MatMul(x, w)\n a = Add(m, b)\n y = Relu(a)");
  EXPECT_EQ(test::count_ops(*s.model->graph, "Gemm"), 1u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u);
  test::expect_same_outputs(s);
}

TEST(FuseMatmulAdd, HigherRankKeepsMatMulAdd) {
  auto s = mm("5,4,3", "5,4,2", "m = MatMul(x, w)\n a = Add(m, b)\n y = Relu(a)");
  EXPECT_EQ(test::count_ops(*s.model->graph, "Gemm"), 0u);
  EXPECT_EQ(test::count_ops(*s.model->graph, "MatMul"), 1u);
}

TEST(FuseMatmulAdd, RowBroadcastBiasStays) {
  // x's rows unknown: a one-row x would be broadcast to the bias's three rows, which Gemm does
  // not do (with x's rows proved 3 the [3, 2] bias is Gemm's C: fuse_matmul_add_test.cc).
  auto s = mm("B,3", "3,2", "m = MatMul(x, w)\n a = Add(m, full)\n y = Relu(a)");
  EXPECT_EQ(test::count_ops(*s.model->graph, "Gemm"), 0u);
}

TEST(FuseMatmulAdd, GraphOutputKeepsItsName) {
  auto s = mm("4,3", "4,2", "m = MatMul(x, w)\n y = Add(m, b)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->first_node()->op_type, "Gemm");
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  test::expect_same_outputs(s);
}

TEST(FuseMatmulAdd, InsideLoopBody) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2,2] x) => (float[2,2] y)
<float[2,2] w = {0.5, -1, 2, 0.25}, float[2] b = {0.1, -0.2}>
{
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = bd (int64 i, bool c, float[2,2] acc) => (bool co, float[2,2] out) {
      co = Identity(c)
      m = MatMul(acc, w)
      out = Add(m, b)
    }
  >
}
)", {"infer_shapes", "fuse_matmul_add", "eliminate_dead_nodes"});
  EXPECT_NE(s.printed.find("Gemm"), std::string::npos) << s.printed;
  test::expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim

// fuse_matmul_bn, fuse_pad_conv, fuse_transpose_gemm, fuse_gemm_bias, fuse_gemm_mul,
// fuse_consecutive_slices, fuse_concat_of_slices: for each, a positive case whose outputs are
// compared with the original's in the evaluator, a case that must not fire, a graph-output
// case and a case inside an If or Loop body.
namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

const ir::Node* find_op(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  g.for_each_node([&](const ir::Node* n) {
    if (!found && n->op_type == op) found = n;
  });
  return found;
}

test::Simplified run(const std::string& text, const std::string& pass) {
  return test::simplify_text(text, {"infer_shapes", pass, "eliminate_dead_nodes", "eliminate_unused_initializers"});
}

// Data movement only (slices): the outputs must be bit-exact.
void expect_bit_exact(const test::Simplified& s, std::map<std::string, int64_t> dims = {}) {
  eval::VerifyOptions vo;
  vo.samples = 2;
  vo.rtol = 0;
  vo.atol = 0;
  vo.inputs.dims = std::move(dims);
  auto v = eval::Verifier::create(*s.original, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  auto rep = v.value()->compare_with(*s.model);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
}

// ---- fuse_matmul_bn
const char* kGemmHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] x) => (float[OUT] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2,3] wt = {0.5, 2, -0.5, -1, 0.25, 1}, float[2] c = {0.1, -0.2},
 float[4,1] crow = {1, 2, 3, 4}, float[2] s = {1.5, 0.5}, float[2] bb = {0.1, -0.3}, float[2] mu = {0.2, -0.1}, float[2] var = {1, 0.5},
 float[4] s4 = {1, 2, 0.5, 1.5}, float[4] bb4 = {0.1, 0, -0.2, 0.3}, float[4] mu4 = {0.2, -0.1, 0, 0.1}, float[4] var4 = {1, 0.5, 2, 1.5},
 float[3,4] w4 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[1,2] k = {2, -0.5}, float[4,1] krow = {1, 2, 3, 4},
 float[3,4,2] big = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
)";

std::string gemm_model(const std::string& body, const std::string& out = "4,2") {
  std::string head = kGemmHead;
  head.replace(head.find("OUT"), 3, out);
  return head + "{\n" + body + "\n}\n";
}

TEST(FuseMatmulBn, GemmThenBatchNormIsOneGemm) {
  auto s = run(gemm_model("m = Gemm <transB = 1, alpha = 0.5, beta = 2.0> (x, wt, crow)\n"
                          "n = BatchNormalization(m, s, bb, mu, var)\n y = Relu(n)"), "fuse_matmul_bn");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 0u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseMatmulBn, MatMulThenBatchNormBecomesGemm) {
  auto s = run(gemm_model("m = MatMul(x, w)\n n = BatchNormalization(m, s, bb, mu, var)\n y = Relu(n)"), "fuse_matmul_bn");
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
)", "fuse_matmul_bn");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 1u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseMatmulBn, SharedProductStays) {
  auto s = run(gemm_model("m = Gemm(x, w, c)\n n = BatchNormalization(m, s, bb, mu, var)\n y = Add(n, m)"), "fuse_matmul_bn");
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
)", "fuse_matmul_bn");
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "BatchNormalization"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "BatchNormalization"), 0u) << s.printed;
  expect_same_outputs(s, 4);
}

// ---- fuse_transpose_gemm
TEST(FuseTransposeGemm, TransposesBecomeFlags) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3,4] a, float[3,2] b) => (float[4,2] y)
<float[2] c = {0.1, -0.2}>
{ ta = Transpose <perm = [1, 0]> (a)
  tb = Transpose (b)
  m = Gemm <transB = 1, alpha = 0.5> (ta, tb, c)
  y = Relu(m) }
)", "fuse_transpose_gemm");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 0u) << s.printed;
  const ir::Node* gemm = find_op(*s.model->graph, "Gemm");
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->attr_int("transA", 0), 1);
  EXPECT_EQ(gemm->attr_int("transB", 0), 0);
  expect_same_outputs(s);
}

TEST(FuseTransposeGemm, SharedTransposeStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3,3] a, float[3,2] b) => (float[3,2] y, float[3,3] z)
{ ta = Transpose <perm = [1, 0]> (a)
  y = Gemm(ta, b)
  z = Relu(ta) }
)", "fuse_transpose_gemm");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u) << s.printed;
}

TEST(FuseTransposeGemm, GraphOutputTransposeStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3,4] a, float[3,2] b) => (float[4,2] y, float[4,3] ta)
{ ta = Transpose <perm = [1, 0]> (a)
  y = Gemm(ta, b) }
)", "fuse_transpose_gemm");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "ta");
}

TEST(FuseTransposeGemm, GemmAsGraphOutputAndInsideLoopBody) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2,2] x) => (float[2,2] y)
<float[2,2] w = {0.5, -1, 2, 0.25}>
{
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = bd (int64 i, bool c, float[2,2] acc) => (bool co, float[2,2] out) {
      co = Identity(c)
      ta = Transpose <perm = [1, 0]> (acc)
      out = Gemm <transA = 1> (ta, w)
    }
  >
}
)", "fuse_transpose_gemm");
  const ir::Graph& body = *find_op(*s.model->graph, "Loop")->subgraphs()[0];
  EXPECT_EQ(count_ops(body, "Transpose"), 0u) << s.printed;
  EXPECT_EQ(body.outputs()[1]->name(), "out");
  expect_same_outputs_loop(s);
}

// ---- fuse_gemm_bias
TEST(FuseGemmBias, ConstantAddJoinsC) {
  auto s = run(gemm_model("m = Gemm <beta = 0.5> (x, w, c)\n a = Add(k, m)\n y = Relu(a)"), "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 0u) << s.printed;
  EXPECT_EQ(find_op(*s.model->graph, "Gemm")->attr_float("beta", 1.0f), 1.0f);
  expect_same_outputs(s);
}

TEST(FuseGemmBias, RowBiasWithoutC) {
  auto s = run(gemm_model("m = Gemm <alpha = 2.0> (x, w)\n a = Add(m, krow)\n y = Relu(a)"), "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseGemmBias, BroadcastThatGrowsTheOutputStays) {
  auto s = run(gemm_model("m = Gemm(x, w, c)\n a = Add(m, big)\n y = Relu(a)", "3,4,2"), "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseGemmBias, NonConstantCStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] x, float[2] cin) => (float[4,2] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2] c = {0.1, -0.2}>
{ m = Gemm(x, w, cin)
  y = Add(m, c) }
)", "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u) << s.printed;
}

TEST(FuseGemmBias, GraphOutputKeepsItsName) {
  auto s = run(gemm_model("m = Gemm(x, w)\n y = Add(m, c)"), "fuse_gemm_bias");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseGemmBias, SharedGemmOutputStays) {
  auto s = run(gemm_model("m = Gemm(x, w)\n a = Add(m, c)\n y = Mul(a, m)"), "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u) << s.printed;
}

TEST(FuseGemmBias, InsideLoopBody) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2,2] x) => (float[2,2] y)
<float[2,2] w = {0.5, -1, 2, 0.25}, float[2] b = {0.1, -0.2}, float[2] c = {1, 2}>
{
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = bd (int64 i, bool cond, float[2,2] acc) => (bool co, float[2,2] out) {
      co = Identity(cond)
      m = Gemm <beta = 3.0> (acc, w, c)
      out = Add(m, b)
    }
  >
}
)", "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "Loop")->subgraphs()[0], "Add"), 0u) << s.printed;
  expect_same_outputs_loop(s);
}

// ---- fuse_gemm_mul
TEST(FuseGemmMul, ScalarGoesIntoAlphaAndBeta) {
  auto s = run(gemm_model("three = Constant <value = float {3}> ()\n m = Gemm <alpha = 0.5, beta = 2.0> (x, w, crow)\n a = Mul(m, three)\n y = Relu(a)"), "fuse_gemm_mul");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  const ir::Node* gemm = find_op(*s.model->graph, "Gemm");
  EXPECT_EQ(gemm->attr_float("alpha", 1.0f), 1.5f);
  EXPECT_EQ(gemm->attr_float("beta", 1.0f), 6.0f);
  expect_same_outputs(s);
}

TEST(FuseGemmMul, ColumnVectorScalesWeightsAndC) {
  auto s = run(gemm_model("m = Gemm <transB = 1, beta = 2.0> (x, wt, crow)\n a = Mul(k, m)\n y = Relu(a)"), "fuse_gemm_mul");
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
)", "fuse_gemm_mul");
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
)", "fuse_gemm_mul");
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Mul"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "Mul"), 0u) << s.printed;
  expect_same_outputs(s, 4);
}

// ---- fuse_pad_conv
const char* kPadHead = R"(<ir_version: 8, opset_import: ["" : OPSET]>
g (float[1,2,5,5] x) => (float[OUT] y)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4},
 int64[8] p = {0, 0, 1, 2, 0, 0, 2, 1}, int64[8] pc = {0, 1, 1, 0, 0, 0, 1, 0}, int64[4] p2 = {1, 1, 1, 1}, int64[2] ax = {-2, -1}>
)";

std::string pad_model(const std::string& body, const std::string& out, int opset = 17) {
  std::string head = kPadHead;
  head.replace(head.find("OPSET"), 5, std::to_string(opset));
  head.replace(head.find("OUT"), 3, out);
  return head + "{\n" + body + "\n}\n";
}

TEST(FusePadConv, ZeroPadJoinsConvPads) {
  auto s = run(pad_model("q = Pad(x, p)\n c = Conv <pads = [1, 0, 0, 1]> (q, w)\n y = Relu(c)", "1,3,8,7"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  EXPECT_EQ(find_op(*s.model->graph, "Conv")->attr_ints("pads"), (std::vector<int64_t>{2, 2, 2, 2})) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, AttributeFormBeforeOpset11) {
  auto s = run(pad_model("q = Pad <pads = [0, 0, 1, 2, 0, 0, 2, 1], value = 0.0> (x)\n y = Conv(q, w)", "1,3,6,6", 10),
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, AxesInputFromOpset18) {
  auto s = run(pad_model("zero = Constant <value = float {0}> ()\n q = Pad(x, p2, zero, ax)\n y = Conv(q, w)", "1,3,5,5", 18), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, AveragePoolCountingPadsBecomesCountIncludePad) {
  auto s = run(pad_model("q = Pad(x, p)\n y = AveragePool <kernel_shape = [3, 3]> (q)", "1,2,6,6"), "fuse_pad_conv");
  const ir::Node* pool = find_op(*s.model->graph, "AveragePool");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  EXPECT_EQ(pool->attr_int("count_include_pad", 0), 1);
  expect_same_outputs(s);
}

TEST(FusePadConv, AveragePoolWithItsOwnPadsNotCountedStays) {
  auto s = run(pad_model("q = Pad(x, p)\n y = AveragePool <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (q)", "1,2,8,8"),
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 1u) << s.printed;
}

TEST(FusePadConv, AveragePoolCountingItsPadsFuses) {
  auto s = run(pad_model("q = Pad(x, p)\n y = AveragePool <kernel_shape = [3, 3], pads = [0, 0, 0, 1], count_include_pad = 1> (q)",
                         "1,2,6,7"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, MaxPoolOnlyAfterRelu) {
  auto s = run(pad_model("r = Relu(x)\n q = Pad(r, p)\n y = MaxPool <kernel_shape = [3, 3]> (q)", "1,2,6,6"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
  auto t = run(pad_model("q = Pad(x, p)\n y = MaxPool <kernel_shape = [3, 3]> (q)", "1,2,6,6"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*t.model->graph, "Pad"), 1u) << t.printed;
}

TEST(FusePadConv, NonZeroValueChannelPadsAndReflectStay) {
  auto a = run(pad_model("one = Constant <value = float {1}> ()\n q = Pad(x, p, one)\n y = Conv(q, w)", "1,3,6,6"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*a.model->graph, "Pad"), 1u) << a.printed;
  auto b = run(pad_model("q = Pad <mode = \"reflect\"> (x, p)\n y = Conv(q, w)", "1,3,6,6"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*b.model->graph, "Pad"), 1u) << b.printed;
  auto c = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,1,5,5] x) => (float[1,3,6,4] y)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4}, int64[8] pc = {0, 1, 1, 0, 0, 0, 1, 0}>
{ q = Pad(x, pc)
  y = Conv(q, w) }
)", "fuse_pad_conv");
  EXPECT_EQ(count_ops(*c.model->graph, "Pad"), 1u) << c.printed;
}

TEST(FusePadConv, PadAsGraphOutputStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,5,5] x) => (float[1,3,6,6] y, float[1,2,8,8] q)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4}, int64[8] p = {0, 0, 1, 2, 0, 0, 2, 1}>
{ q = Pad(x, p)
  y = Conv(q, w) }
)", "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "q");
}

TEST(FusePadConv, ConvAsGraphOutputInsideIfBranch) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[1,2,5,5] x) => (float[1,3,6,6] y)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4}, int64[8] p = {0, 0, 1, 2, 0, 0, 2, 1}>
{
  y = If(k) <
    then_branch = t1 () => (float[1,3,6,6] o1) { q = Pad(x, p)  o1 = Conv(q, w) },
    else_branch = t2 () => (float[1,3,6,6] o2) { q2 = Pad(x, p)  c2 = Conv(q2, w)  o2 = Neg(c2) }
  >
}
)", "fuse_pad_conv");
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Pad"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "Pad"), 0u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->outputs()[0]->name(), "o1");
  expect_same_outputs(s, 4);
}

// ---- fuse_consecutive_slices
const char* kSliceHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[IN] x) => (float[OUT] y)
<int64[1] a0 = {0}, int64[1] a1 = {1}, int64[1] a2 = {2}, int64[1] s1 = {1}, int64[1] e5 = {5}, int64[1] s2 = {2},
 int64[1] em1 = {-1}, int64[1] sm3 = {-3}, int64[1] big = {9223372036854775807}, int64[1] st2 = {2}, int64[1] z = {0},
 int64[1] e2 = {2}, int64[1] e3 = {3}, int64[1] s3 = {3}, int64[1] e4 = {4}>
)";

std::string slice_model(const std::string& in, const std::string& out, const std::string& body) {
  std::string head = kSliceHead;
  head.replace(head.find("IN"), 2, in);
  head.replace(head.find("OUT"), 3, out);
  return head + "{\n" + body + "\n}\n";
}

TEST(FuseConsecutiveSlices, DisjointAxesBecomeOneSlice) {
  auto s = run(slice_model("4,6,8", "4,4,5", "t = Slice(x, s1, e5, a1)\n u = Slice(t, s2, em1, a2)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConsecutiveSlices, SameAxisComposes) {
  // [1, 5) then [-3, -1) of the 4 left: elements 2, 3 of x's axis 1.
  auto s = run(slice_model("4,6,8", "4,2,8", "t = Slice(x, s1, e5, a1)\n u = Slice(t, sm3, em1, a1)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConsecutiveSlices, UnknownDimNeedsNonNegativeBounds) {
  auto s = run(slice_model("N,8", "?,8", "t = Slice(x, s1, big, a0)\n u = Slice(t, s2, e5, a0)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"N", 9}});
  expect_same_outputs(s, 2, {{"N", 4}});
  auto t = run(slice_model("N,8", "?,8", "t = Slice(x, s1, em1, a0)\n u = Slice(t, s2, e5, a0)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*t.model->graph, "Slice"), 2u) << t.printed;
}

TEST(FuseConsecutiveSlices, StepOnASharedAxisStays) {
  auto s = run(slice_model("4,6,8", "4,2,8", "t = Slice(x, z, e5, a1, st2)\n u = Slice(t, s1, big, a1)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 2u) << s.printed;
}

TEST(FuseConsecutiveSlices, GraphOutputs) {
  // The inner slice is a graph output: kept. The outer one is: fused, its name kept.
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,6] x) => (float[4,4] t, float[2,4] y)
<int64[1] a0 = {0}, int64[1] a1 = {1}, int64[1] s1 = {1}, int64[1] e5 = {5}, int64[1] e3 = {3}>
{ t = Slice(x, s1, e5, a1)
  y = Slice(t, s1, e3, a0) }
)", "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 2u) << s.printed;
  auto u = run(slice_model("4,6,8", "4,4,5", "t = Slice(x, s1, e5, a1)\n y = Slice(t, s2, em1, a2)"), "fuse_consecutive_slices");
  EXPECT_EQ(u.nodes(), 1u) << u.printed;
  EXPECT_EQ(u.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(u);
}

TEST(FuseConsecutiveSlices, AttributeFormBeforeOpset10) {
  auto s = run(R"(<ir_version: 4, opset_import: ["" : 9]>
g (float[4,6,8] x) => (float[2,3,8] y)
{ t = Slice <starts = [1, 1], ends = [4, 5], axes = [0, 1]> (x)
  u = Slice <starts = [1], ends = [3], axes = [1]> (t)
  y = Relu(u) }
)", "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConsecutiveSlices, InsideLoopBody) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[6,4] x) => (float[6,4] y)
<int64[1] a0 = {0}, int64[1] a1 = {1}, int64[1] z = {0}, int64[1] e3 = {3}, int64[1] e6 = {6}, int64[1] s1 = {1}>
{
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = bd (int64 i, bool c, float[6,4] acc) => (bool co, float[6,4] out) {
      co = Identity(c)
      p = Slice(acc, z, e6, a0)
      q = Slice(p, s1, e3, a1)
      r = Concat <axis = 1> (q, q)
      out = Concat <axis = 1> (r, r)
    }
  >
}
)", "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "Loop")->subgraphs()[0], "Slice"), 1u) << s.printed;
  expect_same_outputs_loop(s);
}

// ---- fuse_concat_of_slices
TEST(FuseConcatOfSlices, SlicesCoveringTheInputInOrderAreTheInput) {
  auto s = run(slice_model("2,6,3", "2,6,3", "p = Slice(x, z, e2, a1)\n q = Slice(x, s2, e5, a1)\n r = Slice(x, e5, big, a1)\n"
                                             " c = Concat <axis = -2> (p, q, r)\n y = Relu(c)"),
               "fuse_concat_of_slices");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConcatOfSlices, UnknownDimWithOpenEnd) {
  auto s = run(slice_model("N,3", "?,3", "p = Slice(x, z, e2, a0)\n r = Slice(x, e2, big, a0)\n c = Concat <axis = 0> (p, r)\n y = Relu(c)"),
               "fuse_concat_of_slices");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"N", 5}});
  expect_same_outputs(s, 2, {{"N", 1}});
}

TEST(FuseConcatOfSlices, GapsOverlapsAndOrderStay) {
  auto gap = run(slice_model("2,6,3", "2,5,3", "p = Slice(x, z, e2, a1)\n r = Slice(x, s3, big, a1)\n c = Concat <axis = 1> (p, r)\n y = Relu(c)"),
                 "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*gap.model->graph, "Concat"), 1u) << gap.printed;
  auto order = run(slice_model("2,6,3", "2,6,3", "r = Slice(x, e2, big, a1)\n p = Slice(x, z, e2, a1)\n c = Concat <axis = 1> (r, p)\n y = Relu(c)"),
                   "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*order.model->graph, "Concat"), 1u) << order.printed;
  auto axis = run(slice_model("2,6,3", "2,12,2", "p = Slice(x, z, e2, a2)\n r = Slice(x, z, e2, a2)\n c = Concat <axis = 1> (p, r)\n y = Relu(c)"),
                  "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*axis.model->graph, "Concat"), 1u) << axis.printed;
}

TEST(FuseConcatOfSlices, GraphOutputs) {
  // The Concat is a graph output: the input's producer takes over its name.
  auto s = run(slice_model("2,6,3", "2,6,3", "x2 = Relu(x)\n p = Slice(x2, z, e3, a1)\n r = Slice(x2, s3, big, a1)\n y = Concat <axis = 1> (p, r)"),
               "fuse_concat_of_slices");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
  // The input is a graph input: the Concat stays.
  auto t = run(slice_model("2,6,3", "2,6,3", "p = Slice(x, z, e3, a1)\n r = Slice(x, s3, big, a1)\n y = Concat <axis = 1> (p, r)"),
               "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*t.model->graph, "Concat"), 1u) << t.printed;
  // A slice that is a graph output: stays.
  auto u = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,6] x) => (float[2,6] y, float[2,3] p)
<int64[1] a1 = {1}, int64[1] z = {0}, int64[1] e3 = {3}, int64[1] e6 = {6}>
{ p = Slice(x, z, e3, a1)
  r = Slice(x, e3, e6, a1)
  c = Concat <axis = 1> (p, r)
  y = Relu(c) }
)", "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*u.model->graph, "Concat"), 1u) << u.printed;
}

TEST(FuseConcatOfSlices, InsideIfBranch) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[4,6] x) => (float[4,6] y)
<int64[1] a1 = {1}, int64[1] z = {0}, int64[1] e3 = {3}, int64[1] e6 = {6}>
{
  y = If(k) <
    then_branch = t1 () => (float[4,6] o1) { p = Slice(x, z, e3, a1)  r = Slice(x, e3, e6, a1)  c = Concat <axis = 1> (p, r)  o1 = Relu(c) },
    else_branch = t2 () => (float[4,6] o2) { o2 = Neg(x) }
  >
}
)", "fuse_concat_of_slices");
  EXPECT_EQ(s.model->graph->first_node()->subgraphs()[0]->num_nodes(), 1u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim

// ---- A node of the outer graph rewritten by a fusion rooted in a subgraph (issue 12, F3)
namespace onnxtrim {
namespace {

// The Gemm/Conv is in the main graph; its only reader (the Add/Mul/BatchNormalization the
// fusion folds in) is inside the then-branch of an If. The new weights and bias belong to the
// main graph, where the rewritten node reads them; made in the branch they would be undefined
// (the verifier, on in these tests, names such a value).
struct OuterCase {
  const char* pass;
  const char* producer;  // main-graph node computing p
  const char* branch;    // then-branch nodes reading p, output o1
  const char* folded;    // the op that must leave the branch
};

std::string outer_model(const OuterCase& c, bool conv) {
  std::string head = conv ? R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[2,3,4,4] x) => (float[2,2,4,4] y)
<float[2,3,1,1] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2,1,1] c = {1.5, -2},
 float[2] s = {1, 2}, float[2] bb = {0.1, -0.2}, float[2] mu = {0.2, -0.1}, float[2] var = {1, 0.5}>
)"
                          : R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[4,3] x) => (float[4,2] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2] c = {1.5, -2},
 float[2] s = {1, 2}, float[2] bb = {0.1, -0.2}, float[2] mu = {0.2, -0.1}, float[2] var = {1, 0.5}>
)";
  std::string shape = conv ? "float[2,2,4,4]" : "float[4,2]";
  std::string other = conv ? "Conv(x, w)" : "Gemm(x, w)";
  return head + "{\n  " + c.producer + "\n  y = If(k) <\n    then_branch = t1 () => (" + shape + " o1) { " + c.branch +
         " },\n    else_branch = t2 () => (" + shape + " o2) { o2 = " + other + " }\n  >\n}\n";
}

void expect_fused_outside(const OuterCase& c, bool conv) {
  SCOPED_TRACE(c.pass);
  auto s = test::simplify_text(outer_model(c, conv), {"infer_shapes", c.pass, "eliminate_dead_nodes"});
  ASSERT_TRUE(s.model);
  const ir::Node* iff = find_op(*s.model->graph, "If");
  ASSERT_TRUE(iff);
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], c.folded), 0u) << s.printed;
  // The rewritten node reads initializers of the main graph, none of the branch's.
  const ir::Node* p = s.model->graph->first_node();
  for (const ir::Value* in : p->inputs()) {
    if (in && in->is_initializer()) {
      EXPECT_EQ(in->graph(), s.model->graph.get()) << in->name();
    }
  }
  EXPECT_TRUE(iff->subgraphs()[0]->initializers().empty()) << s.printed;
  expect_same_outputs(s, 4);
}

TEST(FusionsOfAnOuterNode, NewConstantsGoToTheRewrittenNodesGraph) {
  const OuterCase gemm_cases[] = {
      {"fuse_gemm_bias", "p = Gemm(x, w)", "a = Add(p, c)  o1 = Relu(a)", "Add"},
      {"fuse_gemm_mul", "p = Gemm(x, w)", "a = Mul(p, c)  o1 = Relu(a)", "Mul"},
      {"fuse_matmul_bn", "p = Gemm(x, w)", "a = BatchNormalization(p, s, bb, mu, var)  o1 = Relu(a)", "BatchNormalization"},
  };
  for (const auto& c : gemm_cases) expect_fused_outside(c, false);
  const OuterCase conv_cases[] = {
      {"fuse_conv_bn", "p = Conv(x, w)", "a = BatchNormalization(p, s, bb, mu, var)  o1 = Relu(a)", "BatchNormalization"},
      {"fuse_conv_add", "p = Conv(x, w)", "a = Add(p, c)  o1 = Relu(a)", "Add"},
      {"fuse_conv_mul", "p = Conv(x, w)", "a = Mul(c, p)  o1 = Relu(a)", "Mul"},
  };
  for (const auto& c : conv_cases) expect_fused_outside(c, true);
}

ir::Tensor true_scalar() {
  ir::Tensor t(ir::DataType::kBool, {});
  t.mutable_bytes()[0] = 1;
  return t;
}

TEST(FusionsOfAnOuterNode, ExactValuesAfterTheFusion) {
  // Gemm [4,3] x [3,2] in the main graph, + [1.5, -2] inside the branch: y = Relu(x w + c).
  auto s = test::simplify_text(outer_model({"fuse_gemm_bias", "p = Gemm(x, w)", "a = Add(p, c)  o1 = Neg(a)", "Add"}, false),
                               {"infer_shapes", "fuse_gemm_bias", "eliminate_dead_nodes"});
  ASSERT_TRUE(s.model);
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "If")->subgraphs()[0], "Add"), 0u) << s.printed;
  eval::Interpreter interp(*s.model);
  std::map<std::string, ir::RuntimeValue> feeds{
      {"k", ir::RuntimeValue::of(true_scalar())},
      {"x", ir::RuntimeValue::of(ops::make_tensor<float>({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}))}};
  auto out = interp.run(feeds);
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(),
            (std::vector<float>{-2, 3, -3.5f, 1.75f, -1, 1, -3.5f, 1.75f}));
}

TEST(FusionsOfAnOuterNode, SharedAcrossBranchesStays) {
  // p is read in both branches: not the Add's alone, so nothing fuses.
  auto s = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[4,3] x) => (float[4,2] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2] c = {1.5, -2}>
{
  p = Gemm(x, w)
  y = If(k) < then_branch = t1 () => (float[4,2] o1) { o1 = Add(p, c) },
              else_branch = t2 () => (float[4,2] o2) { o2 = Neg(p) } >
}
)", {"infer_shapes", "fuse_gemm_bias", "eliminate_dead_nodes"});
  ASSERT_TRUE(s.model);
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "If")->subgraphs()[0], "Add"), 1u) << s.printed;
  expect_same_outputs(s, 4);
}

TEST(FusionsOfAnOuterNode, BranchOutputStays) {
  // The Add is the branch's output: its name cannot pass to the outer Gemm's value, so the
  // fusion does not fire and the model stays valid.
  auto s = test::simplify_text(outer_model({"fuse_gemm_bias", "p = Gemm(x, w)", "o1 = Add(p, c)", "Add"}, false),
                               {"infer_shapes", "fuse_gemm_bias", "eliminate_dead_nodes"});
  ASSERT_TRUE(s.model);
  const ir::Graph& then_branch = *find_op(*s.model->graph, "If")->subgraphs()[0];
  EXPECT_EQ(count_ops(then_branch, "Add"), 1u) << s.printed;
  EXPECT_EQ(then_branch.outputs()[0]->name(), "o1") << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
