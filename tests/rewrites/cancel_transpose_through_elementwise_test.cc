// cancel_transpose_through_elementwise: a Transpose pulled up through elementwise ops cancels
// the inverse Transposes it meets (issue 29, convnext: the blocks' Transposes back to NCHW go
// through the layer-scale Mul and the residual Add to the next stage's Transpose to NHWC).
// Exact counts on a convnext-like stage, a shared value kept through a Transpose back, refusals
// (a change that would not lower the count, a lower-rank non-constant input), a graph-output
// intermediate, a case inside an If branch, and the default pipeline converging.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

const std::vector<std::string> kTransposePasses = {"infer_shapes", "cancel_transpose_through_elementwise",
                                                   "eliminate_dead_nodes", "eliminate_unused_initializers"};

test::Simplified run_transposes(const std::string& inputs, const std::string& outputs, const std::string& body,
                                std::vector<std::string> passes = kTransposePasses) {
  return test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 17]>
g ()" + inputs + ") => (" + outputs +
                                 R"() {
)" + body + "\n}\n",
                             std::move(passes));
}

// h and k are NHWC [2,4,5,3]; the Transposes to NCHW meet the one back to NHWC through a Mul by
// a per-channel constant [3,1,1] and an Add: nothing of them is left, the constant is [1,1,1,3].
TEST(CancelTransposeThroughElementwise, PairCancelsThroughMulAndAdd) {
  auto s = run_transposes("float[2,4,5,3] h, float[2,4,5,3] k", "float[2,4,5,3] y", R"(
  a = Transpose <perm = [0, 3, 1, 2]> (h)
  c = Constant <value = float[3,1,1] {0.5, -2, 3}> ()
  m = Mul(c, a)
  b = Transpose <perm = [0, 3, 1, 2]> (k)
  z = Add(m, b)
  y = Transpose <perm = [0, 2, 3, 1]> (z))");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 0u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u) << s.printed;
  const ir::Node* mul = s.model->graph->first_node();
  ASSERT_EQ(mul->op_type, "Mul") << s.printed;
  const ir::Tensor* c = ops::FoldContext::constant(mul->input(0));
  ASSERT_TRUE(c) << s.printed;
  EXPECT_EQ(c->dims(), (std::vector<int64_t>{1, 1, 1, 3}));
  EXPECT_EQ(c->to_vector<float>(), (std::vector<float>{0.5f, -2, 3}));
  expect_same_outputs(s);
  // Exact values: h = 0..119, k = 1.
  eval::Interpreter interp(*s.model);
  std::vector<float> h(120), k(120, 1.0f);
  for (int i = 0; i < 120; ++i) h[static_cast<size_t>(i)] = static_cast<float>(i);
  auto out = interp.run({{"h", ir::RuntimeValue::of(ops::make_tensor<float>({2, 4, 5, 3}, h))},
                         {"k", ir::RuntimeValue::of(ops::make_tensor<float>({2, 4, 5, 3}, k))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  ASSERT_EQ(y.size(), 120u);
  EXPECT_EQ(y[0], 1.0f);      // 0 * 0.5 + 1
  EXPECT_EQ(y[1], -1.0f);     // 1 * -2 + 1
  EXPECT_EQ(y[2], 7.0f);      // 2 * 3 + 1
  EXPECT_EQ(y[119], 358.0f);  // 119 * 3 + 1
}

// convnext's first stage: the stem's Transpose t0 is read by a Conv-like reader (Sigmoid here)
// and by the residual Add; the residual sums c1, c2 are read by the next block's reader (Relu)
// too. Before: t0, a1, a2, the final Transpose (4). After: t0 for its Sigmoid, one Transpose
// back per shared sum (2): ONNX Runtime's basic level leaves the same.
TEST(CancelTransposeThroughElementwise, ResidualChainKeepsSharedValuesThroughTransposesBack) {
  auto s = run_transposes("float[1,4,4,8] s, float[1,4,4,8] h1, float[1,4,4,8] h2",
                          "float[1,8,4,4] o0, float[1,8,4,4] o1, float[1,4,4,8] y", R"(
  t0 = Transpose <perm = [0, 3, 1, 2]> (s)
  o0 = Sigmoid(t0)
  a1 = Transpose <perm = [0, 3, 1, 2]> (h1)
  k = Constant <value = float {0.001}> ()
  m1 = Mul(k, a1)
  c1 = Add(m1, t0)
  o1 = Relu(c1)
  a2 = Transpose <perm = [0, 3, 1, 2]> (h2)
  m2 = Mul(k, a2)
  c2 = Add(m2, c1)
  y = Transpose <perm = [0, 2, 3, 1]> (c2))");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 2u) << s.printed;
  EXPECT_EQ(s.nodes(), 9u) << s.printed;  // 2 Transposes, Sigmoid, Relu, 2 Mul, 2 Add, the Constant k
  expect_same_outputs(s);
}

// Refusals: both Add inputs plain (pulling adds 2, removes 1); a non-constant input of lower
// rank; a non-elementwise op (Softmax) between inverse Transposes; the reason --explain gives.
TEST(CancelTransposeThroughElementwise, RefusesWhatWouldNotLowerTheCount) {
  auto plain = run_transposes("float[2,3,4] a, float[2,3,4] b", "float[4,3,2] y", R"(
  z = Add(a, b)
  y = Transpose <perm = [2, 1, 0]> (z))");
  EXPECT_EQ(count_ops(*plain.model->graph, "Transpose"), 1u) << plain.printed;
  EXPECT_EQ(plain.nodes(), 2u);

  auto low_rank = run_transposes("float[2,4,3] h, float[4] v", "float[2,4,3] y", R"(
  a = Transpose <perm = [0, 2, 1]> (h)
  z = Add(a, v)
  y = Transpose <perm = [0, 2, 1]> (z))");
  EXPECT_EQ(count_ops(*low_rank.model->graph, "Transpose"), 2u) << low_rank.printed;

  auto other_op = run_transposes("float[2,4,3] h", "float[2,4,3] y", R"(
  a = Transpose <perm = [0, 2, 1]> (h)
  z = Softmax <axis = 1> (a)
  y = Transpose <perm = [0, 2, 1]> (z))");
  EXPECT_EQ(count_ops(*other_op.model->graph, "Transpose"), 2u) << other_op.printed;

  // explain names the reason (on the model with its types inferred, as --explain reads the result).
  auto typed = run_transposes("float[2,3,4] a, float[2,3,4] b", "float[4,3,2] y", R"(
  z = Add(a, b)
  y = Transpose <perm = [2, 1, 0]> (z))",
                              {"infer_shapes"});
  passes::SimplifyOptions o;
  bool found = false;
  for (const auto& [rule, why] : passes::explain(*typed.model, "y", o))
    if (rule == "cancel_transpose_through_elementwise") {
      found = true;
      EXPECT_NE(why.find("removes 1 Transposes and adds 2"), std::string::npos) << why;
    }
  EXPECT_TRUE(found);
}

// The Add's output is a graph output too: it keeps its name and layout through a Transpose back.
TEST(CancelTransposeThroughElementwise, GraphOutputIntermediateKeepsItsName) {
  auto s = run_transposes("float[2,4,5,3] h, float[2,4,5,3] k", "float[2,4,5,3] y, float[2,3,4,5] z", R"(
  a = Transpose <perm = [0, 3, 1, 2]> (h)
  b = Transpose <perm = [0, 3, 1, 2]> (k)
  z = Add(a, b)
  y = Transpose <perm = [0, 2, 3, 1]> (z))");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u) << s.printed;
  ASSERT_EQ(s.model->graph->outputs().size(), 2u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "z");
  EXPECT_EQ(s.model->graph->outputs()[1]->producer()->op_type, "Transpose");
  expect_same_outputs(s);
}

TEST(CancelTransposeThroughElementwise, InsideIfBranch) {
  auto s = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2,4,3] h, float[2,4,3] k) => (float[2,4,3] y) {
  b = Transpose <perm = [0, 2, 1]> (k)
  y = If(c) <
    then_branch = t () => (float[2,4,3] o) {
      a = Transpose <perm = [0, 2, 1]> (h)
      e = Exp(a)
      z = Sub(e, b)
      o = Transpose <perm = [0, 2, 1]> (z)
    },
    else_branch = f () => (float[2,4,3] o2) {
      o2 = Neg(h)
    }
  >
}
)",
                               kTransposePasses);
  const ir::Node* iff = nullptr;
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "If") iff = n;
  });
  ASSERT_TRUE(iff) << s.printed;
  // The branch reads h and the outer k directly; the outer Transpose b has no reader left.
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Transpose"), 0u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 2u) << s.printed;
  expect_same_outputs(s, 4);
}

// Through the default pipeline (convergence checked): the convnext-like stage ends with no
// Transpose between the blocks but the ones the shared values need.
TEST(CancelTransposeThroughElementwise, DefaultPipeline) {
  auto s = run_transposes("float[1,4,4,8] s, float[1,4,4,8] h1, float[1,4,4,8] h2",
                          "float[1,8,4,4] o0, float[1,8,4,4] o1, float[1,4,4,8] y", R"(
  t0 = Transpose <perm = [0, 3, 1, 2]> (s)
  o0 = Sigmoid(t0)
  a1 = Transpose <perm = [0, 3, 1, 2]> (h1)
  k = Constant <value = float[8,1,1] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  m1 = Mul(k, a1)
  c1 = Add(m1, t0)
  o1 = Relu(c1)
  a2 = Transpose <perm = [0, 3, 1, 2]> (h2)
  m2 = Mul(k, a2)
  c2 = Add(m2, c1)
  y = Transpose <perm = [0, 2, 3, 1]> (c2))",
                          {});
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 2u) << s.printed;
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
