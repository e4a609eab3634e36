// fuse_transpose_gemm: a Transpose of a Gemm operand becomes its trans flag; a shared or
// graph-output Transpose stays; a Gemm that is a Loop body's output.
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
using test::run;

TEST(FuseTransposeGemm, TransposesBecomeFlags) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3,4] a, float[3,2] b) => (float[4,2] y)
<float[2] c = {0.1, -0.2}>
{ ta = Transpose <perm = [1, 0]> (a)
  tb = Transpose (b)
  m = Gemm <transB = 1, alpha = 0.5> (ta, tb, c)
  y = Relu(m) }
)",
               "fuse_transpose_gemm");
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
)",
               "fuse_transpose_gemm");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u) << s.printed;
}

TEST(FuseTransposeGemm, GraphOutputTransposeStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3,4] a, float[3,2] b) => (float[4,2] y, float[4,3] ta)
{ ta = Transpose <perm = [1, 0]> (a)
  y = Gemm(ta, b) }
)",
               "fuse_transpose_gemm");
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
)",
               "fuse_transpose_gemm");
  const ir::Graph& body = *find_op(*s.model->graph, "Loop")->subgraphs()[0];
  EXPECT_EQ(count_ops(body, "Transpose"), 0u) << s.printed;
  EXPECT_EQ(body.outputs()[1]->name(), "out");
  expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim
