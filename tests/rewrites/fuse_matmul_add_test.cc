// fuse_matmul_add with biases beyond [N] and [1, N] (issue 28): a scalar, a one-element tensor,
// [M, 1] and [M, N] with M proved, and a splat made by a generator all broadcast as Gemm's C
// does; biases that would grow the product, higher ranks, a graph-output intermediate; inside
// an If branch.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

const std::vector<std::string> kMatMulAddPasses = {"infer_shapes", "fuse_matmul_add", "eliminate_dead_nodes",
                                                   "eliminate_unused_initializers"};

// x [IN] @ w [3, 2] + BIAS, then Relu (so the Add's output is no graph output).
test::Simplified gemm(const std::string& in, const std::string& out, const std::string& inits, const std::string& body,
                      std::vector<std::string> passes = kMatMulAddPasses) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[)" + in + R"(] x) => (float[)" +
                     out + R"(] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1})" +
                     inits + R"(>
{
)" + body + "\n}\n";
  return test::simplify_text(text, std::move(passes));
}

const char* kBody = "m = MatMul(x, w)\n a = Add(m, b)\n y = Relu(a)";

TEST(FuseMatmulAddBias, ScalarBiasBecomesGemmWithExactValues) {
  auto s = gemm("2,3", "2,2", ", float b = {0.5}", kBody);
  ASSERT_EQ(s.nodes(), 2u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Gemm"), 1u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "MatMul"), 0u);
  expect_same_outputs(s);
  // x = [[1, 0, 0], [0, 1, 1]]: rows of w plus 0.5, then Relu.
  eval::Interpreter interp(*s.model);
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3}, {1, 0, 0, 0, 1, 1}))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(), (std::vector<float>{1.0f, 0.0f, 2.0f, 1.75f}));
}

TEST(FuseMatmulAddBias, OneElementBiasesOfRankOneAndTwo) {
  for (const char* b : {", float[1] b = {0.5}", ", float[1,1] b = {-0.25}"}) {
    auto s = gemm("4,3", "4,2", b, kBody);
    EXPECT_EQ(s.nodes(), 2u) << s.printed;
    EXPECT_EQ(count_ops(*s.model->graph, "Gemm"), 1u) << s.printed;
    expect_same_outputs(s);
  }
}

TEST(FuseMatmulAddBias, ColumnAndFullBiasWithProvedRows) {
  auto col = gemm("3,3", "3,2", ", float[3,1] b = {1, 2, 3}", kBody);
  EXPECT_EQ(count_ops(*col.model->graph, "Gemm"), 1u) << col.printed;
  EXPECT_EQ(col.nodes(), 2u);
  expect_same_outputs(col);
  auto full = gemm("3,3", "3,2", ", float[3,2] b = {1, 2, 3, 4, 5, 6}", kBody);
  EXPECT_EQ(count_ops(*full.model->graph, "Gemm"), 1u) << full.printed;
  expect_same_outputs(full);
}

TEST(FuseMatmulAddBias, SplatGeneratorBecomesScalarC) {
  // Expand of a scalar to [4, 2]: C is the scalar, the Expand goes.
  auto s = gemm("4,3", "4,2", ", float v = {1.5}, int64[2] shp = {4, 2}",
                "e = Expand(v, shp)\n m = MatMul(x, w)\n a = Add(e, m)\n y = Relu(a)");
  ASSERT_EQ(s.nodes(), 2u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Expand"), 0u) << s.printed;
  const ir::Node* g = s.model->graph->first_node();
  ASSERT_EQ(g->op_type, "Gemm");
  const ir::Tensor* c = ops::FoldContext::constant(g->input(2));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank(), 0);
  expect_same_outputs(s);
  // The default pipeline: eliminate_splat_broadcast makes the splat a scalar first, then Gemm.
  auto d = gemm("4,3", "4,2", ", float v = {1.5}, int64[2] shp = {4, 2}",
                "e = Expand(v, shp)\n m = MatMul(x, w)\n a = Add(e, m)\n y = Relu(a)", {});
  EXPECT_EQ(count_ops(*d.model->graph, "Gemm"), 1u) << d.printed;
  EXPECT_EQ(d.nodes(), 2u) << d.printed;
  expect_same_outputs(d);
}

TEST(FuseMatmulAddBias, RefusesWhatWouldChangeTheResult) {
  // A bias of 3 rows on an x of unknown rows: a one-row x would broadcast to three rows.
  auto rows = gemm("B,3", "3,2", ", float[3,2] b = {1, 2, 3, 4, 5, 6}", kBody);
  EXPECT_EQ(count_ops(*rows.model->graph, "Gemm"), 0u) << rows.printed;
  expect_same_outputs(rows, 2, {{"B", 1}});
  // A rank-3 bias makes a rank-3 output; Gemm's is 2-D.
  auto r3 = gemm("4,3", "1,4,2", ", float[1,1,1] b = {0.5}", kBody);
  EXPECT_EQ(count_ops(*r3.model->graph, "Gemm"), 0u) << r3.printed;
  // x of rank 3 with a scalar bias.
  auto x3 = gemm("5,4,3", "5,4,2", ", float b = {0.5}", kBody);
  EXPECT_EQ(count_ops(*x3.model->graph, "Gemm"), 0u) << x3.printed;
  EXPECT_EQ(count_ops(*x3.model->graph, "MatMul"), 1u);
  // A bias of 3 rows on a one-row x: the Add broadcasts x to three rows, Gemm would not.
  auto grow = gemm("1,3", "3,2", ", float[3,1] b = {1, 2, 3}", kBody);
  EXPECT_EQ(count_ops(*grow.model->graph, "Gemm"), 0u) << grow.printed;
  expect_same_outputs(grow);
}

TEST(FuseMatmulAddBias, GraphOutputIntermediateStays) {
  auto text = std::string(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] x) => (float[4,2] y, float[4,2] m)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float b = {0.5}>
{
  m = MatMul(x, w)
  y = Add(m, b)
}
)");
  auto s = test::simplify_text(text, kMatMulAddPasses);
  EXPECT_EQ(count_ops(*s.model->graph, "Gemm"), 0u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u);
  // The Add itself a graph output: fires, keeps the name.
  auto o = gemm("4,3", "4,2", ", float b = {0.5}", "m = MatMul(x, w)\n y = Add(b, m)");
  ASSERT_EQ(o.nodes(), 1u) << o.printed;
  EXPECT_EQ(o.model->graph->first_node()->op_type, "Gemm");
  EXPECT_EQ(o.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(o);
}

TEST(FuseMatmulAddBias, InsideIfBranch) {
  auto s = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[4,3] x) => (float[4,2] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float b = {0.5}>
{
  y = If(c) <
    then_branch = t () => (float[4,2] o) { m = MatMul(x, w)  a = Add(m, b)  o = Relu(a) },
    else_branch = e () => (float[4,2] o2) { m2 = MatMul(x, w)  o2 = Neg(m2) }
  >
}
)",
                               kMatMulAddPasses);
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_EQ(iff->op_type, "If");
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Gemm"), 1u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 2u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "Gemm"), 0u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim

// ---- The base forms: a 2-D product and a [N] bias become a Gemm; higher ranks and a row bias
// stay; a graph output keeps its name; inside a Loop body.
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
  return test::simplify_text(head + "{\n" + body + "\n}\n",
                             {"infer_shapes", "fuse_matmul_add", "eliminate_dead_nodes"});
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
)",
                               {"infer_shapes", "fuse_matmul_add", "eliminate_dead_nodes"});
  EXPECT_NE(s.printed.find("Gemm"), std::string::npos) << s.printed;
  test::expect_same_outputs_loop(s);
}
}  // namespace
}  // namespace onnxtrim
