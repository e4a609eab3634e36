// fuse_gemm_bias: a constant added to a Gemm joins its C when it broadcasts as C does; a
// broadcast that grows the output, a non-constant C, a shared output stay; graph output; Loop.
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
)",
               "fuse_gemm_bias");
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
)",
               "fuse_gemm_bias");
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "Loop")->subgraphs()[0], "Add"), 0u) << s.printed;
  expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim
