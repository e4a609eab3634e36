// Fusions: fuse_conv_bn, fuse_conv_add, fuse_conv_mul. A positive case with values, a case
// where the fusion must not fire, a graph-output case and a subgraph case for each.
#include <gtest/gtest.h>

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
  auto s = mm("3,3", "3,2", "m = MatMul(x, w)\n a = Add(m, full)\n y = Relu(a)");
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
  eval::VerifyOptions vo;
  vo.samples = 2;
  vo.inputs.pinned["n"] = ir::RuntimeValue::of(ir::Tensor::scalar_i64(3));
  auto v = eval::Verifier::create(*s.original, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  auto rep = v.value()->compare_with(*s.model);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
}

}  // namespace
}  // namespace onnxtrim
