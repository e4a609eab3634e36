// fuse_gelu: the erf and tanh forms become Gelu-20; a case for each refusal, a graph-output case
// (every case's product is one) and a subgraph case.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

// torch's erf form: x * 0.5 * (1 + erf(x / sqrt(2))), opset 20.
std::string erf_form(const std::string& opset, const std::string& sqrt2 = "1.4142135381698608") {
  return R"(
<ir_version: 9, opset_import: ["" : )" +
         opset + R"(]>
g (float[2,3] x) => (float[2,3] y) {
  r2 = Constant <value = float {)" +
         sqrt2 + R"(}> ()
  d = Div(x, r2)
  e = Erf(d)
  one = Constant <value = float {1}> ()
  s = Add(e, one)
  m = Mul(x, s)
  half = Constant <value = float {0.5}> ()
  y = Mul(m, half)
}
)";
}

// HF's NewGELU (tanh form) with x^3 as Pow(x, 3) or x * x * x.
std::string tanh_form(const std::string& cube, const std::string& c2 = "0.044715") {
  return R"(
<ir_version: 9, opset_import: ["" : 20]>
g (float[4] x) => (float[4] y) {
  half = Constant <value = float {0.5}> ()
  hx = Mul(x, half)
  )" + cube +
         R"(
  c = Constant <value = float {)" +
         c2 + R"(}> ()
  t = Mul(c, x3)
  u = Add(x, t)
  k = Constant <value = float {0.7978845834732056}> ()
  w = Mul(k, u)
  th = Tanh(w)
  one = Constant <value = float {1}> ()
  s = Add(one, th)
  y = Mul(hx, s)
}
)";
}

const char* kPow = "three = Constant <value = float {3}> ()\n  x3 = Pow(x, three)";
const char* kMuls = "xx = Mul(x, x)\n  x3 = Mul(x, xx)";

const ir::Node* only_node(const test::Simplified& s) {
  return s.model->graph->num_nodes() == 1 ? s.model->graph->first_node() : nullptr;
}

TEST(FuseGelu, ErfFormIsOneGelu) {
  auto s = simplify_text(erf_form("20"));
  const ir::Node* g = only_node(s);
  ASSERT_TRUE(g) << s.printed;
  EXPECT_EQ(g->op_type, "Gelu");
  EXPECT_FALSE(g->has_attr("approximate"));
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // the graph output keeps its name
  expect_same_outputs(s);
  // Exact values of the result: Gelu(0) = 0, Gelu(1) = Phi(1), Gelu(-2) = -2 * Phi(-2).
  eval::Interpreter interp(*s.model);
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3}, {0, 1, -2, 3, -0.5f, 0.25f}))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  auto gelu = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  const std::vector<double> xs{0, 1, -2, 3, -0.5, 0.25};
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(y[i], gelu(xs[i]), 1e-6) << xs[i];
}

TEST(FuseGelu, TanhFormWithPowOrProducts) {
  for (const char* cube : {kPow, kMuls}) {
    auto s = simplify_text(tanh_form(cube));
    const ir::Node* g = only_node(s);
    ASSERT_TRUE(g) << s.printed;
    EXPECT_EQ(g->op_type, "Gelu");
    EXPECT_EQ(g->attr_string("approximate", ""), "tanh");
    expect_same_outputs(s);
  }
}

TEST(FuseGelu, RefusesWhatIsNotTheFormula) {
  // Before opset 20 there is no Gelu.
  EXPECT_EQ(count_ops(*simplify_text(erf_form("17")).model->graph, "Gelu"), 0u);
  // sqrt(2) written as 1.41, and 0.04472 for 0.044715: other functions.
  EXPECT_EQ(count_ops(*simplify_text(erf_form("20", "1.41")).model->graph, "Gelu"), 0u);
  EXPECT_EQ(count_ops(*simplify_text(tanh_form(kPow, "0.04472")).model->graph, "Gelu"), 0u);
  // The Erf's result is also a graph output: it must stay.
  auto shared = simplify_text(R"(
<ir_version: 9, opset_import: ["" : 20]>
g (float[3] x) => (float[3] y, float[3] e) {
  r2 = Constant <value = float {1.4142135381698608}> ()
  d = Div(x, r2)
  e = Erf(d)
  one = Constant <value = float {1}> ()
  s = Add(e, one)
  m = Mul(x, s)
  half = Constant <value = float {0.5}> ()
  y = Mul(m, half)
}
)");
  EXPECT_EQ(count_ops(*shared.model->graph, "Gelu"), 0u);
  expect_same_outputs(shared);
  // A 0.5 of shape [1,1] would broadcast x [3] to [1,3]: not Gelu(x).
  auto broadcast = simplify_text(R"(
<ir_version: 9, opset_import: ["" : 20]>
g (float[3] x) => (float[1,3] y) {
  r2 = Constant <value = float {1.4142135381698608}> ()
  d = Div(x, r2)
  e = Erf(d)
  one = Constant <value = float {1}> ()
  s = Add(e, one)
  m = Mul(x, s)
  half = Constant <value = float[1,1] {0.5}> ()
  y = Mul(m, half)
}
)");
  EXPECT_EQ(count_ops(*broadcast.model->graph, "Gelu"), 0u);
  expect_same_outputs(broadcast);
  // The reasons, through --explain's function.
  auto m = test::parse(tanh_form(kPow, "0.04472"));
  passes::SimplifyOptions o;
  auto gelu_reason = [&](ir::Model& model) {
    for (const auto& [rule, why] : passes::explain(model, "y", o))
      if (rule == "fuse_gelu") return why;
    return std::string("(not listed)");
  };
  EXPECT_EQ(gelu_reason(*m), "the Tanh does not read sqrt(2/pi) * (x + 0.044715 * x^3)");
  auto old = test::parse(erf_form("17"));
  EXPECT_EQ(gelu_reason(*old), "opset 17 < 20 has no Gelu");
}

TEST(FuseGelu, InsideALoopBody) {
  auto s = simplify_text(R"(
<ir_version: 9, opset_import: ["" : 20]>
g (float[2] x, int64 n) => (float[2] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) {
      co = Identity(c)
      r2 = Constant <value = float {1.4142135381698608}> ()
      d = Div(acc, r2)
      e = Erf(d)
      one = Constant <value = float {1}> ()
      s = Add(one, e)
      half = Constant <value = float {0.5}> ()
      h = Mul(half, acc)
      out = Mul(s, h)
    }>
}
)");
  const ir::Node* loop = s.model->graph->first_node();
  ASSERT_TRUE(loop && loop->op_type == "Loop") << s.printed;
  const ir::Graph& body = *loop->subgraphs()[0];
  EXPECT_EQ(count_ops(body, "Gelu"), 1u) << s.printed;
  EXPECT_EQ(count_ops(body, "Erf"), 0u);
  test::expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim
