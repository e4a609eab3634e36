// A node of the outer graph rewritten by a fusion rooted in a subgraph (issue 12, F3): the
// Gemm/Conv fusions whose folded op sits in an If branch.
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
      {"fuse_matmul_bn", "p = Gemm(x, w)", "a = BatchNormalization(p, s, bb, mu, var)  o1 = Relu(a)",
       "BatchNormalization"},
  };
  for (const auto& c : gemm_cases) expect_fused_outside(c, false);
  const OuterCase conv_cases[] = {
      {"fuse_conv_bn", "p = Conv(x, w)", "a = BatchNormalization(p, s, bb, mu, var)  o1 = Relu(a)",
       "BatchNormalization"},
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
  auto s =
      test::simplify_text(outer_model({"fuse_gemm_bias", "p = Gemm(x, w)", "a = Add(p, c)  o1 = Neg(a)", "Add"}, false),
                          {"infer_shapes", "fuse_gemm_bias", "eliminate_dead_nodes"});
  ASSERT_TRUE(s.model);
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "If")->subgraphs()[0], "Add"), 0u) << s.printed;
  eval::Interpreter interp(*s.model);
  std::map<std::string, ir::RuntimeValue> feeds{
      {"k", ir::RuntimeValue::of(true_scalar())},
      {"x", ir::RuntimeValue::of(ops::make_tensor<float>({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}))}};
  auto out = interp.run(feeds);
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(), (std::vector<float>{-2, 3, -3.5f, 1.75f, -1, 1, -3.5f, 1.75f}));
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
)",
                               {"infer_shapes", "fuse_gemm_bias", "eliminate_dead_nodes"});
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
