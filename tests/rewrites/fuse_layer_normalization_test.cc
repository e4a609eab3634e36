// fuse_layer_normalization: torch's opset-13 LayerNorm (and its Reciprocal, Div(1, .) and
// Pow -0.5 forms, with or without scale and bias, over one or two axes, axes as attribute or
// input) becomes LayerNormalization-17; exact values; a case for each refusal, graph-output and
// read-elsewhere cases, and a subgraph case.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/interpreter.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

// torch's opset-13 export of nn.LayerNorm(4) (docs/standard_ops.md), a field per step so that a
// case can change one: mean, x - mean, its square, the variance, + eps, the division, and the
// scale's Mul and the bias's Add.
struct Ln {
  std::string opset = "17";
  std::string inputs = "float[2,3,4] x";
  std::string outputs = "float[2,3,4] y";
  std::string mean = "mean = ReduceMean <axes = [-1], keepdims = 1> (x)";
  std::string center = "d = Sub(x, mean)";
  std::string square = "two = Constant <value = float {2}> ()\n  sq = Pow(d, two)";
  std::string var = "var = ReduceMean <axes = [-1], keepdims = 1> (sq)";
  std::string eps = "eps = Constant <value = float {1e-5}> ()\n  a = Add(var, eps)";
  std::string division = "s = Sqrt(a)\n  n = Div(d, s)";
  std::string affine =
      "w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()\n  nw = Mul(n, w)\n"
      "  b = Constant <value = float[4] {0.125, -0.25, 0.375, 1}> ()\n  y = Add(nw, b)";

  std::string text() const {
    return "<ir_version: 8, opset_import: [\"\" : " + opset + "]>\ng (" + inputs + ") => (" + outputs + ") {\n  " +
           mean + "\n  " + center + "\n  " + square + "\n  " + var + "\n  " + eps + "\n  " + division + "\n  " +
           affine + "\n}\n";
  }
};

// The same at opset 18, where ReduceMean takes its axes as an input.
Ln opset18() {
  Ln l;
  l.opset = "18";
  l.mean = "axes = Constant <value = int64[1] {-1}> ()\n  mean = ReduceMean <keepdims = 1> (x, axes)";
  l.var = "var = ReduceMean <keepdims = 1> (sq, axes)";
  return l;
}

const char* kDiv = "s = Sqrt(a)\n  n = Div(d, s)";
const char* kReciprocal = "s = Sqrt(a)\n  r = Reciprocal(s)\n  n = Mul(d, r)";
const char* kDivOne = "s = Sqrt(a)\n  one = Constant <value = float {1}> ()\n  r = Div(one, s)\n  n = Mul(r, d)";
const char* kPowHalf = "mh = Constant <value = float {-0.5}> ()\n  r = Pow(a, mh)\n  n = Mul(d, r)";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// The one node of the result when it is a LayerNormalization, else null.
const ir::Node* only_layer_norm(const test::Simplified& s) {
  if (s.nodes() != 1) return nullptr;
  const ir::Node* n = s.model->graph->first_node();
  return n->op_type == "LayerNormalization" ? n : nullptr;
}

std::vector<float> constant_floats(const ir::Value* v) {
  const ir::Tensor* t = ops::FoldContext::constant(v);
  return t ? t->to_vector<float>() : std::vector<float>{};
}

// Why the rule does not fire at y, on the model as parsed (nothing simplified).
std::string layer_norm_reason(const std::string& text) {
  return test::explain_reason(text, "fuse_layer_normalization");
}

TEST(FuseLayerNormalization, Opset17IsOneNode) {
  Ln l;
  auto s = simplify_text(l.text());
  const ir::Node* n = only_layer_norm(s);
  ASSERT_TRUE(n) << s.printed;
  EXPECT_EQ(n->num_inputs(), 3u);
  EXPECT_EQ(n->input(0)->name(), "x");
  EXPECT_EQ(constant_floats(n->input(1)), (std::vector<float>{0.5f, 1.5f, -1, 2}));
  EXPECT_EQ(constant_floats(n->input(2)), (std::vector<float>{0.125f, -0.25f, 0.375f, 1}));
  EXPECT_EQ(n->attr_int("axis", -1), 2);
  EXPECT_FLOAT_EQ(n->attr_float("epsilon", 0), 1e-5f);
  EXPECT_FALSE(n->has_attr("stash_type"));
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // the graph output keeps its name
  expect_same_outputs(s);
}

TEST(FuseLayerNormalization, Opset18AxesInputIsOneNode) {
  auto s = simplify_text(opset18().text());
  const ir::Node* n = only_layer_norm(s);
  ASSERT_TRUE(n) << s.printed;
  EXPECT_EQ(n->num_inputs(), 3u);
  EXPECT_EQ(n->attr_int("axis", -1), 2);
  EXPECT_FLOAT_EQ(n->attr_float("epsilon", 0), 1e-5f);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseLayerNormalization, EveryDivisionSquareAndOperandOrder) {
  for (const char* division : {kDiv, kReciprocal, kDivOne, kPowHalf})
    for (const Ln& base : {Ln{}, opset18()}) {
      Ln l = base;
      l.division = division;
      auto s = simplify_text(l.text());
      const ir::Node* n = only_layer_norm(s);
      ASSERT_TRUE(n) << division << "\n" << s.printed;
      EXPECT_EQ(n->num_inputs(), 3u);
      EXPECT_EQ(n->attr_int("axis", -1), 2);
      EXPECT_FLOAT_EQ(n->attr_float("epsilon", 0), 1e-5f);
      expect_same_outputs(s);
    }
  // d * d for the square, eps + var, the scale and the bias first.
  Ln l;
  l.square = "sq = Mul(d, d)";
  l.eps = "eps = Constant <value = float {0.001}> ()\n  a = Add(eps, var)";
  l.affine =
      "w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()\n  nw = Mul(w, n)\n"
      "  b = Constant <value = float[4] {0.125, -0.25, 0.375, 1}> ()\n  y = Add(b, nw)";
  auto s = simplify_text(l.text());
  const ir::Node* n = only_layer_norm(s);
  ASSERT_TRUE(n) << s.printed;
  EXPECT_EQ(n->num_inputs(), 3u);
  EXPECT_FLOAT_EQ(n->attr_float("epsilon", 0), 1e-3f);
  expect_same_outputs(s);
}

TEST(FuseLayerNormalization, ScaleAndBiasOptional) {
  // Scale only: two inputs.
  Ln scale_only;
  scale_only.affine = "w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()\n  y = Mul(w, n)";
  auto s1 = simplify_text(scale_only.text());
  const ir::Node* n1 = only_layer_norm(s1);
  ASSERT_TRUE(n1) << s1.printed;
  EXPECT_EQ(n1->num_inputs(), 2u);
  EXPECT_EQ(constant_floats(n1->input(1)), (std::vector<float>{0.5f, 1.5f, -1, 2}));
  expect_same_outputs(s1);
  // Bias only: a scale of ones is made.
  Ln bias_only;
  bias_only.affine = "b = Constant <value = float[4] {0.125, -0.25, 0.375, 1}> ()\n  y = Add(b, n)";
  auto s2 = simplify_text(bias_only.text());
  const ir::Node* n2 = only_layer_norm(s2);
  ASSERT_TRUE(n2) << s2.printed;
  EXPECT_EQ(n2->num_inputs(), 3u);
  EXPECT_EQ(constant_floats(n2->input(1)), (std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(constant_floats(n2->input(2)), (std::vector<float>{0.125f, -0.25f, 0.375f, 1}));
  expect_same_outputs(s2);
  // Neither, the Div form (rooted at the Div) and the Reciprocal form (rooted at its Mul).
  for (const char* division : {"s = Sqrt(a)\n  y = Div(d, s)", "s = Sqrt(a)\n  r = Reciprocal(s)\n  y = Mul(r, d)"}) {
    Ln plain;
    plain.division = division;
    plain.affine = "";
    auto s = simplify_text(plain.text());
    const ir::Node* n = only_layer_norm(s);
    ASSERT_TRUE(n) << s.printed;
    EXPECT_EQ(n->num_inputs(), 2u);
    EXPECT_EQ(constant_floats(n->input(1)), (std::vector<float>{1, 1, 1, 1}));
    EXPECT_EQ(n->attr_int("axis", -1), 2);
    EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
    expect_same_outputs(s);
  }
}

TEST(FuseLayerNormalization, DoubleIsOneNode) {
  auto s = simplify_text(replace_all(Ln{}.text(), "float", "double"));
  const ir::Node* n = only_layer_norm(s);
  ASSERT_TRUE(n) << s.printed;
  EXPECT_EQ(ops::FoldContext::constant(n->input(1))->dtype(), ir::DataType::kDouble);
  expect_same_outputs(s);
}

TEST(FuseLayerNormalization, TwoAxes) {
  // nn.LayerNorm((3, 4)): axis 1 of a rank-3 x; the bias of [4] is written out to [3, 4].
  Ln l;
  l.mean = "mean = ReduceMean <axes = [-2, -1], keepdims = 1> (x)";
  l.var = "var = ReduceMean <axes = [1, 2], keepdims = 1> (sq)";
  l.affine =
      "w = Constant <value = float[3,4] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}> ()\n  nw = Mul(n, w)\n"
      "  b = Constant <value = float[4] {0.125, -0.25, 0.375, 1}> ()\n  y = Add(nw, b)";
  auto s = simplify_text(l.text());
  const ir::Node* n = only_layer_norm(s);
  ASSERT_TRUE(n) << s.printed;
  EXPECT_EQ(n->attr_int("axis", -1), 1);
  ASSERT_EQ(n->num_inputs(), 3u);
  EXPECT_EQ(ops::FoldContext::constant(n->input(1))->dims(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(ops::FoldContext::constant(n->input(2))->dims(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(constant_floats(n->input(2)),
            (std::vector<float>{0.125f, -0.25f, 0.375f, 1, 0.125f, -0.25f, 0.375f, 1, 0.125f, -0.25f, 0.375f, 1}));
  expect_same_outputs(s);
  // Without scale and bias: ones of [3, 4].
  l.division = "s = Sqrt(a)\n  y = Div(d, s)";
  l.affine = "";
  auto plain = simplify_text(l.text());
  const ir::Node* p = only_layer_norm(plain);
  ASSERT_TRUE(p) << plain.printed;
  EXPECT_EQ(p->attr_int("axis", -1), 1);
  EXPECT_EQ(ops::FoldContext::constant(p->input(1))->dims(), (std::vector<int64_t>{3, 4}));
  expect_same_outputs(plain);
}

TEST(FuseLayerNormalization, ExactValues) {
  // Row [1, 2, 3, 4]: mean 2.5, variance 1.25; row [0, 0, 0, 4]: mean 1, variance 3.
  Ln l;
  l.inputs = "float[2,4] x";
  l.outputs = "float[2,4] y";
  auto s = simplify_text(l.text());
  ASSERT_TRUE(only_layer_norm(s)) << s.printed;
  eval::Interpreter interp(*s.model);
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 4}, {1, 2, 3, 4, 0, 0, 0, 4}))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  ASSERT_EQ(y.size(), 8u);
  const double w[4] = {0.5, 1.5, -1, 2}, b[4] = {0.125, -0.25, 0.375, 1};
  const double sd0 = std::sqrt(1.25 + 1e-5), sd1 = std::sqrt(3 + 1e-5);
  const double d0[4] = {-1.5, -0.5, 0.5, 1.5}, d1[4] = {-1, -1, -1, 3};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(y[i], d0[i] / sd0 * w[i] + b[i], 1e-5) << i;
    EXPECT_NEAR(y[4 + i], d1[i] / sd1 * w[i] + b[i], 1e-5) << i;
  }
  EXPECT_NEAR(y[0], -0.5458177, 1e-5);  // -1.5 / 1.1180384 * 0.5 + 0.125
  EXPECT_NEAR(y[7], 4.4640958, 1e-5);   // 3 / 1.7320537 * 2 + 1
  expect_same_outputs(s);
}

TEST(FuseLayerNormalization, RefusesOpsetAxesAndKeepdims) {
  // Before opset 17.
  Ln old;
  old.opset = "16";
  auto s = simplify_text(old.text());
  EXPECT_EQ(count_ops(*s.model->graph, "LayerNormalization"), 0u) << s.printed;
  EXPECT_EQ(layer_norm_reason(old.text()), "opset 16 < 17 has no LayerNormalization");
  // Reduced over an axis that is not the last.
  Ln other;
  other.inputs = "float[2,4,4] x";
  other.outputs = "float[2,4,4] y";
  other.mean = "mean = ReduceMean <axes = [1], keepdims = 1> (x)";
  other.var = "var = ReduceMean <axes = [1], keepdims = 1> (sq)";
  auto so = simplify_text(other.text());
  EXPECT_EQ(count_ops(*so.model->graph, "LayerNormalization"), 0u) << so.printed;
  expect_same_outputs(so);
  EXPECT_EQ(layer_norm_reason(other.text()), "the ReduceMean's axes are not the last ones");
  // Axes that are not constant (an input at opset 18).
  Ln fed = opset18();
  fed.inputs = "float[2,3,4] x, int64[1] ax";
  fed.mean = "mean = ReduceMean <keepdims = 1> (x, ax)";
  fed.var = "var = ReduceMean <keepdims = 1> (sq, ax)";
  auto sf = simplify_text(fed.text());
  EXPECT_EQ(count_ops(*sf.model->graph, "LayerNormalization"), 0u) << sf.printed;
  EXPECT_EQ(layer_norm_reason(fed.text()), "the ReduceMean's axes are not constant");
  // keepdims = 0 on a square x: the means broadcast along the other axis (ONNX Runtime #30513).
  Ln keep0;
  keep0.inputs = "float[4,4] x";
  keep0.outputs = "float[4,4] y";
  keep0.mean = "mean = ReduceMean <axes = [-1], keepdims = 0> (x)";
  keep0.var = "var = ReduceMean <axes = [-1], keepdims = 0> (sq)";
  auto sk = simplify_text(keep0.text());
  EXPECT_EQ(count_ops(*sk.model->graph, "LayerNormalization"), 0u) << sk.printed;
  expect_same_outputs(sk);
  EXPECT_EQ(layer_norm_reason(keep0.text()), "the ReduceMean drops the reduced axes (keepdims = 0)");
  // keepdims = 0 on the variance's ReduceMean alone, at opset 18.
  Ln keep0_var = opset18();
  keep0_var.inputs = "float[4,4] x";
  keep0_var.outputs = "float[4,4] y";
  keep0_var.var = "var = ReduceMean <keepdims = 0> (sq, axes)";
  auto skv = simplify_text(keep0_var.text());
  EXPECT_EQ(count_ops(*skv.model->graph, "LayerNormalization"), 0u) << skv.printed;
  expect_same_outputs(skv);
  EXPECT_EQ(layer_norm_reason(keep0_var.text()), "the ReduceMean drops the reduced axes (keepdims = 0)");
  // The mean over the last axis, the variance over the last two.
  Ln differ;
  differ.var = "var = ReduceMean <axes = [-2, -1], keepdims = 1> (sq)";
  auto sd = simplify_text(differ.text());
  EXPECT_EQ(count_ops(*sd.model->graph, "LayerNormalization"), 0u) << sd.printed;
  expect_same_outputs(sd);
  EXPECT_EQ(layer_norm_reason(differ.text()), "the two ReduceMeans reduce different axes");
  // Axes as an input at opset 17 (not valid ONNX there: an opset-17 ReduceMean has no second
  // input) and as an attribute at opset 18 (removed there): refused, not read.
  Ln input17 = opset18();
  input17.opset = "17";
  EXPECT_EQ(layer_norm_reason(input17.text()), "the ReduceMean has axes as an input, not valid at opset 17");
  Ln attr18;
  attr18.opset = "18";
  EXPECT_EQ(layer_norm_reason(attr18.text()), "the ReduceMean has axes as an attribute, not valid at opset 18");
}

// CLIP/Whisper's float16 LayerNorm: super().forward(x.float()).type(x.dtype), with a float32
// affine. The float32 LayerNorm between the Casts fuses as it is and the Casts stay: taking them
// into a float16 LayerNormalization would round the affine's products and sums to float16 where
// the decomposition rounds once at the end.
TEST(FuseLayerNormalization, Float16BetweenCastsKeepsTheCasts) {
  Ln l;
  l.inputs = "float16[2,3,4] x16";
  l.outputs = "float16[2,3,4] y";
  l.mean = "x = Cast <to = 1> (x16)\n  " + l.mean;
  l.affine = replace_all(l.affine, "y = Add(nw, b)", "yf = Add(nw, b)\n  y = Cast <to = 10> (yf)");
  auto s = simplify_text(l.text());
  ASSERT_EQ(s.nodes(), 3u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Cast"), 2u) << s.printed;
  const ir::Node* ln = s.model->graph->first_node()->output(0)->uses()[0].node;
  ASSERT_EQ(ln->op_type, "LayerNormalization") << s.printed;
  EXPECT_EQ(ln->input(0)->type.elem, ir::DataType::kFloat);
  EXPECT_EQ(ln->input(1)->initializer()->dtype(), ir::DataType::kFloat);
  expect_same_outputs(s);
}

TEST(FuseLayerNormalization, RefusesAnotherXAndEps) {
  // z - mean(x).
  Ln twox;
  twox.inputs = "float[2,3,4] x, float[2,3,4] z";
  twox.center = "d = Sub(z, mean)";
  auto sx = simplify_text(twox.text());
  EXPECT_EQ(count_ops(*sx.model->graph, "LayerNormalization"), 0u) << sx.printed;
  expect_same_outputs(sx);
  EXPECT_EQ(layer_norm_reason(twox.text()), "the mean subtracted is not of the Sub's first operand");
  // A negative eps.
  Ln neg;
  neg.eps = "eps = Constant <value = float {-1e-5}> ()\n  a = Add(var, eps)";
  auto sn = simplify_text(neg.text());
  EXPECT_EQ(count_ops(*sn.model->graph, "LayerNormalization"), 0u) << sn.printed;
  expect_same_outputs(sn);
  EXPECT_EQ(layer_norm_reason(neg.text()), "eps is negative or NaN");
  // An eps per element.
  Ln many;
  many.eps = "eps = Constant <value = float[4] {1e-5, 2e-5, 3e-5, 4e-5}> ()\n  a = Add(var, eps)";
  auto sm = simplify_text(many.text());
  EXPECT_EQ(count_ops(*sm.model->graph, "LayerNormalization"), 0u) << sm.printed;
  expect_same_outputs(sm);
  EXPECT_EQ(layer_norm_reason(many.text()),
            "nothing added to the variance is a one-element constant (of at most x's rank)");
  // An eps that is no constant.
  Ln fed;
  fed.inputs = "float[2,3,4] x, float[1] e";
  fed.eps = "a = Add(var, e)";
  auto sf = simplify_text(fed.text());
  EXPECT_EQ(count_ops(*sf.model->graph, "LayerNormalization"), 0u) << sf.printed;
  EXPECT_EQ(layer_norm_reason(fed.text()),
            "nothing added to the variance is a one-element constant (of at most x's rank)");
  // eps outside the square root: (x - mean) / (Sqrt(var) + eps).
  Ln outside;
  outside.eps = "eps = Constant <value = float {1e-5}> ()";
  outside.division = "s0 = Sqrt(var)\n  s = Add(s0, eps)\n  n = Div(d, s)";
  auto so = simplify_text(outside.text());
  EXPECT_EQ(count_ops(*so.model->graph, "LayerNormalization"), 0u) << so.printed;
  expect_same_outputs(so);
  EXPECT_EQ(layer_norm_reason(outside.text()), "eps is added outside the square root");
}

TEST(FuseLayerNormalization, RefusesScalesAndBiasesThatDoNotFit) {
  // A scale of [4] on x [2,4,1]: it broadcasts the output to [2,4,4] (ONNX Runtime #25855,
  // #31980). The normalization alone fuses (a scale of ones of [1]); the Mul and Add stay.
  Ln grows;
  grows.inputs = "float[2,4,1] x";
  grows.outputs = "float[2,4,4] y";
  auto sg = simplify_text(grows.text());
  EXPECT_EQ(count_ops(*sg.model->graph, "LayerNormalization"), 1u) << sg.printed;
  EXPECT_EQ(count_ops(*sg.model->graph, "Mul"), 1u) << sg.printed;
  EXPECT_EQ(count_ops(*sg.model->graph, "Add"), 1u) << sg.printed;
  expect_same_outputs(sg);
  EXPECT_EQ(layer_norm_reason(grows.text()), "the scale's dims are not x's trailing dims");
  // A bias of [3, 4] over the last axis alone: the scale's Mul fuses, the Add stays.
  Ln wide;
  wide.affine =
      "w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()\n  nw = Mul(n, w)\n"
      "  b = Constant <value = float[3,4] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}> ()\n  y = Add(nw, b)";
  auto sw = simplify_text(wide.text());
  EXPECT_EQ(count_ops(*sw.model->graph, "LayerNormalization"), 1u) << sw.printed;
  EXPECT_EQ(count_ops(*sw.model->graph, "Mul"), 0u) << sw.printed;
  EXPECT_EQ(count_ops(*sw.model->graph, "Add"), 1u) << sw.printed;
  expect_same_outputs(sw);
  EXPECT_EQ(layer_norm_reason(wide.text()), "the bias has more dims than the normalized axes");
  // A scale that is no constant: the normalization alone fuses.
  Ln fed_scale;
  fed_scale.inputs = "float[2,3,4] x, float[4] w";
  fed_scale.affine = "nw = Mul(n, w)\n  b = Constant <value = float[4] {0.125, -0.25, 0.375, 1}> ()\n  y = Add(nw, b)";
  auto ss = simplify_text(fed_scale.text());
  EXPECT_EQ(count_ops(*ss.model->graph, "LayerNormalization"), 1u) << ss.printed;
  EXPECT_EQ(count_ops(*ss.model->graph, "Mul"), 1u) << ss.printed;
  EXPECT_EQ(count_ops(*ss.model->graph, "Add"), 1u) << ss.printed;
  expect_same_outputs(ss);
  EXPECT_EQ(layer_norm_reason(fed_scale.text()), "the scale is not a constant");
  // A bias that is no constant: the scale's Mul fuses.
  Ln fed_bias;
  fed_bias.inputs = "float[2,3,4] x, float[4] b";
  fed_bias.affine = "w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()\n  nw = Mul(n, w)\n  y = Add(nw, b)";
  auto sb = simplify_text(fed_bias.text());
  EXPECT_EQ(count_ops(*sb.model->graph, "LayerNormalization"), 1u) << sb.printed;
  EXPECT_EQ(count_ops(*sb.model->graph, "Mul"), 0u) << sb.printed;
  EXPECT_EQ(count_ops(*sb.model->graph, "Add"), 1u) << sb.printed;
  expect_same_outputs(sb);
  EXPECT_EQ(layer_norm_reason(fed_bias.text()), "the bias is not a constant");
  // A scale of another type than x (an invalid model: the reason only).
  Ln typed;
  typed.affine =
      "w = Constant <value = double[4] {0.5, 1.5, -1, 2}> ()\n  nw = Mul(n, w)\n"
      "  b = Constant <value = float[4] {0.125, -0.25, 0.375, 1}> ()\n  y = Add(nw, b)";
  EXPECT_EQ(layer_norm_reason(typed.text()), "the scale's element type differs from x's");
}

TEST(FuseLayerNormalization, RefusesTypesAndUnknownRank) {
  // int32 (Sqrt takes no integers: an invalid model, the reason only).
  Ln ints;
  ints.square = "two = Constant <value = int32 {2}> ()\n  sq = Pow(d, two)";
  ints.eps = "eps = Constant <value = int32 {1}> ()\n  a = Add(var, eps)";
  ints.affine =
      "w = Constant <value = int32[4] {1, 2, 3, 4}> ()\n  nw = Mul(n, w)\n"
      "  b = Constant <value = int32[4] {1, 1, 1, 1}> ()\n  y = Add(nw, b)";
  EXPECT_EQ(layer_norm_reason(replace_all(ints.text(), "float", "int32")),
            "the element type is not float, float16, bfloat16 or double");
  // x reshaped to a shape of unknown length: its rank is not known.
  Ln unknown;
  unknown.inputs = "float[24] x0, int64[K] shp";
  unknown.outputs = "float[] y";
  unknown.mean = "x = Reshape(x0, shp)\n  mean = ReduceMean <axes = [-1], keepdims = 1> (x)";
  auto su = simplify_text(unknown.text());
  EXPECT_EQ(count_ops(*su.model->graph, "LayerNormalization"), 0u) << su.printed;
  EXPECT_EQ(layer_norm_reason(unknown.text()), "x's rank is not known");
}

TEST(FuseLayerNormalization, SharedIntermediatesAndGraphOutputs) {
  // x - mean read by another node too.
  Ln shared;
  shared.outputs = "float[2,3,4] y, float[2,3,4] y2";
  shared.affine += "\n  y2 = Neg(d)";
  auto s1 = simplify_text(shared.text());
  EXPECT_EQ(count_ops(*s1.model->graph, "LayerNormalization"), 0u) << s1.printed;
  expect_same_outputs(s1);
  EXPECT_EQ(layer_norm_reason(shared.text()), "x - mean is read elsewhere or is a graph output");
  // The variance is a graph output.
  Ln var_out;
  var_out.outputs = "float[2,3,4] y, float[2,3,1] var";
  auto s2 = simplify_text(var_out.text());
  EXPECT_EQ(count_ops(*s2.model->graph, "LayerNormalization"), 0u) << s2.printed;
  expect_same_outputs(s2);
  EXPECT_EQ(layer_norm_reason(var_out.text()), "eps is not added to a ReduceMean read only by the Add");
  // The normalized value is a graph output: the normalization fuses (its output keeps the name
  // n), the scale's Mul and the bias's Add stay after it.
  Ln n_out;
  n_out.outputs = "float[2,3,4] y, float[2,3,4] n";
  auto s3 = simplify_text(n_out.text());
  EXPECT_EQ(count_ops(*s3.model->graph, "LayerNormalization"), 1u) << s3.printed;
  EXPECT_EQ(count_ops(*s3.model->graph, "Mul"), 1u) << s3.printed;
  EXPECT_EQ(count_ops(*s3.model->graph, "Add"), 1u) << s3.printed;
  ASSERT_EQ(s3.model->graph->outputs().size(), 2u);
  EXPECT_EQ(s3.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s3.model->graph->outputs()[1]->name(), "n");
  EXPECT_EQ(s3.model->graph->outputs()[1]->producer()->op_type, "LayerNormalization");
  expect_same_outputs(s3);
  EXPECT_EQ(layer_norm_reason(n_out.text()), "the Mul does not scale (x - mean) / Sqrt(var + eps) read only by it");
}

TEST(FuseLayerNormalization, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2,4] x) => (float[2,4] y) {
  y = If(c) <then_branch = t () => (float[2,4] o) {
      mean = ReduceMean <axes = [-1], keepdims = 1> (x)
      d = Sub(x, mean)
      sq = Mul(d, d)
      var = ReduceMean <axes = [-1], keepdims = 1> (sq)
      eps = Constant <value = float {1e-5}> ()
      a = Add(eps, var)
      s = Sqrt(a)
      n = Div(d, s)
      w = Constant <value = float[4] {1, 2, 3, 4}> ()
      nw = Mul(w, n)
      b = Constant <value = float[4] {0.5, 0, -0.5, 1}> ()
      o = Add(nw, b)
    }, else_branch = e () => (float[2,4] o2) { o2 = Neg(x) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  const ir::Graph& branch = *iff->subgraphs()[0];
  EXPECT_EQ(branch.num_nodes(), 1u) << s.printed;
  EXPECT_EQ(count_ops(branch, "LayerNormalization"), 1u) << s.printed;
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
