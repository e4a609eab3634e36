// fuse_swish: x * Sigmoid(x) and x * Sigmoid(alpha * x) become Swish-24 for the targets that take
// it (tensorrt, openvino), never by default; exact values, refusals, a graph-output case and a
// subgraph case.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/interpreter.h"
#include "ir/clone.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;

test::Simplified swish_simplify(const std::string& text, const std::string& target,
                                std::vector<std::string> enable = {}) {
  test::Simplified s;
  s.model = test::parse(text);
  if (!s.model) return s;
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.target = target;
  o.enable = std::move(enable);
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (r) s.result = r.value();
  s.printed = ir::print_graph(*s.model->graph);
  return s;
}

// torch's F.silu: x * Sigmoid(x); with `alpha`, x * Sigmoid(alpha * x).
std::string silu(const std::string& opset = "24", const std::string& alpha = "", const std::string& extra_out = "") {
  const std::string arg = alpha.empty() ? "x" : "ax";
  return R"(
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[2,3] x) => (float[2,3] y)" +
         extra_out + R"() {
  )" + (alpha.empty() ? "" : "a = Constant <value = " + alpha + "> ()\n  ax = Mul(a, x)\n  ") +
         R"(s = Sigmoid()" + arg + R"()
  y = Mul(x, s)
}
)";
}

std::string swish_reason(const std::string& text) {
  auto m = test::parse(text);
  passes::SimplifyOptions o;
  o.target = "tensorrt";
  for (const auto& [rule, why] : passes::explain(*m, "y", o))
    if (rule == "fuse_swish") return why;
  return "(not listed)";
}

TEST(FuseSwish, SiluIsOneSwishForTensorRTAndOpenVINO) {
  for (const char* target : {"tensorrt", "openvino"}) {
    auto s = swish_simplify(silu(), target);
    ASSERT_EQ(s.nodes(), 1u) << s.printed;
    const ir::Node* sw = s.model->graph->first_node();
    EXPECT_EQ(sw->op_type, "Swish");
    EXPECT_FALSE(sw->has_attr("alpha"));
    EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // the graph output keeps its name
    test::expect_same_outputs(s);
  }
  // Exact values: Swish(x) = x / (1 + exp(-x)).
  auto s = swish_simplify(silu(), "tensorrt");
  eval::Interpreter interp(*s.model);
  const std::vector<float> xs{0, 1, -2, 3, -0.5f, 10};
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3}, xs))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  const std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(y[i], xs[i] / (1 + std::exp(-static_cast<double>(xs[i]))), 1e-6) << xs[i];
  EXPECT_NEAR(y[1], 0.7310585786300049, 1e-6);
}

TEST(FuseSwish, AlphaFromTheGraph) {
  auto s = swish_simplify(silu("24", "float {1.702}"), "tensorrt");
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_FLOAT_EQ(s.model->graph->first_node()->attr_float("alpha", 0), 1.702f);
  test::expect_same_outputs(s);
  eval::Interpreter interp(*s.model);
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3}, {1, 0, 0, 0, 0, -1}))}});
  ASSERT_TRUE(out.is_ok());
  const std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  EXPECT_NEAR(y[0], 1 / (1 + std::exp(-1.702)), 1e-6);
  EXPECT_NEAR(y[5], -1 / (1 + std::exp(1.702)), 1e-6);
}

TEST(FuseSwish, OffByDefaultAndForOtherTargets) {
  // ONNX Runtime runs Swish-24 2x slower than the pair: default, wasm and coreml keep it.
  for (const char* target : {"", "wasm", "coreml"}) {
    auto s = swish_simplify(silu(), target);
    EXPECT_EQ(count_ops(*s.model->graph, "Swish"), 0u) << target;
    EXPECT_EQ(count_ops(*s.model->graph, "Sigmoid"), 1u) << target;
  }
  auto s = swish_simplify(silu(), "", {"fuse_swish"});
  EXPECT_EQ(count_ops(*s.model->graph, "Swish"), 1u) << s.printed;
}

TEST(FuseSwish, Refusals) {
  EXPECT_EQ(count_ops(*swish_simplify(silu("23"), "tensorrt").model->graph, "Swish"), 0u);
  EXPECT_EQ(swish_reason(silu("23")), "opset 23 < 24 has no Swish");
  // alpha of shape [1,1,1] would broadcast x [2,3] to [1,2,3].
  const std::string wide = R"(
<ir_version: 10, opset_import: ["" : 24]>
g (float[2,3] x) => (float[1,2,3] y) {
  a = Constant <value = float[1,1,1] {2}> ()
  ax = Mul(a, x)
  s = Sigmoid(ax)
  y = Mul(x, s)
}
)";
  auto w = swish_simplify(wide, "tensorrt");
  EXPECT_EQ(count_ops(*w.model->graph, "Swish"), 0u);
  test::expect_same_outputs(w);
  EXPECT_EQ(swish_reason(wide),
            "alpha has a higher rank than x (or x's rank is not known): it would broadcast the output");
  // The Sigmoid reads another value than the product's other operand.
  const std::string other = R"(
<ir_version: 10, opset_import: ["" : 24]>
g (float[2,3] x, float[2,3] z) => (float[2,3] y) {
  s = Sigmoid(z)
  y = Mul(x, s)
}
)";
  EXPECT_EQ(count_ops(*swish_simplify(other, "tensorrt").model->graph, "Swish"), 0u);
  EXPECT_EQ(swish_reason(other), "the Sigmoid reads neither x nor alpha * x read only by it");
  // alpha not a constant.
  const std::string dyn = R"(
<ir_version: 10, opset_import: ["" : 24]>
g (float[2,3] x, float a) => (float[2,3] y) {
  ax = Mul(x, a)
  s = Sigmoid(ax)
  y = Mul(x, s)
}
)";
  EXPECT_EQ(swish_reason(dyn), "alpha is not a one-element constant");
  // The Sigmoid is a graph output too: it must stay.
  auto shared = swish_simplify(silu("24", "", ", float[2,3] s"), "tensorrt");
  EXPECT_EQ(count_ops(*shared.model->graph, "Swish"), 0u) << shared.printed;
  test::expect_same_outputs(shared);
}

TEST(FuseSwish, InsideALoopBody) {
  auto s = swish_simplify(R"(
<ir_version: 10, opset_import: ["" : 24]>
g (float[2] x, int64 n) => (float[2] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) {
      co = Identity(c)
      s = Sigmoid(acc)
      out = Mul(s, acc)
    }>
}
)",
                          "openvino");
  const ir::Node* loop = s.model->graph->first_node();
  ASSERT_TRUE(loop && loop->op_type == "Loop") << s.printed;
  const ir::Graph& body = *loop->subgraphs()[0];
  EXPECT_EQ(count_ops(body, "Swish"), 1u) << s.printed;
  EXPECT_EQ(count_ops(body, "Sigmoid"), 0u);
  test::expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim
