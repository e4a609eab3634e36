// fuse_rms_normalization: Llama's RMSNorm (and its Div, Reciprocal and Pow -0.5 forms) becomes
// RMSNormalization-23; refusals, a graph-output case (every case's product is one) and a
// subgraph case. fuse_rms_normalization_fp16 (float16/bfloat16 x, HF's Cast-wrapped form): off by
// default, on for --target tensorrt/openvino; the same cases with the target.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

// torch's export of w * x * rsqrt(mean(x^2, -1, keepdim) + eps), as llama_tiny has it.
std::string rms(const std::string& opset, const std::string& division,
                const std::string& reduce = "ReduceMean <keepdims = 1> (sq, axes)", const std::string& axes = "{-1}",
                const std::string& shape = "2,3,4", const std::string& out_shape = "2,3,4") {
  return R"(
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[)" +
         shape + R"(] x) => (float[)" + out_shape + R"(] y) {
  two = Constant <value = float {2}> ()
  sq = Pow(x, two)
  axes = Constant <value = int64[1] )" +
         axes + R"(> ()
  mean = )" +
         reduce + R"(
  eps = Constant <value = float {1e-6}> ()
  a = Add(mean, eps)
  )" + division +
         R"(
  w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()
  y = Mul(w, n)
}
)";
}

const char* kRmsDivOne = "s = Sqrt(a)\n  one = Constant <value = float {1}> ()\n  r = Div(one, s)\n  n = Mul(x, r)";
const char* kRmsDiv = "s = Sqrt(a)\n  n = Div(x, s)";
const char* kRmsReciprocal = "s = Sqrt(a)\n  r = Reciprocal(s)\n  n = Mul(r, x)";
const char* kRmsPowHalf = "mh = Constant <value = float {-0.5}> ()\n  r = Pow(a, mh)\n  n = Mul(x, r)";

TEST(FuseRmsNormalization, EveryDivisionFormIsOneNode) {
  for (const char* division : {kRmsDivOne, kRmsDiv, kRmsReciprocal, kRmsPowHalf}) {
    auto s = simplify_text(rms("23", division));
    ASSERT_EQ(s.nodes(), 1u) << s.printed;
    const ir::Node* n = s.model->graph->first_node();
    EXPECT_EQ(n->op_type, "RMSNormalization");
    EXPECT_EQ(n->attr_int("axis", 0), 2);
    EXPECT_FLOAT_EQ(n->attr_float("epsilon", 0), 1e-6f);
    EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
    expect_same_outputs(s);
  }
  // Exact values: x = [3, 4, 0, 0] in the last axis: mean of squares 25/4, rms 2.5.
  auto s = simplify_text(rms("23", kRmsDivOne));
  eval::Interpreter interp(*s.model);
  std::vector<float> x(24, 0.0f);
  x[0] = 3;
  x[1] = 4;
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3, 4}, x))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  const float r = std::sqrt(6.25f + 1e-6f);
  EXPECT_NEAR(y[0], 0.5f * 3 / r, 1e-6);
  EXPECT_NEAR(y[1], 1.5f * 4 / r, 1e-6);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[4], 0.0f);  // a row of zeros: 0 / sqrt(eps)
}

TEST(FuseRmsNormalization, Refusals) {
  // Before opset 23.
  EXPECT_EQ(count_ops(*simplify_text(rms("21", kRmsDivOne)).model->graph, "RMSNormalization"), 0u);
  // keepdims = 0 on a square x: the mean broadcasts along the other axis (ORT #30513).
  auto keep0 = simplify_text(rms("23", kRmsDivOne, "ReduceMean <keepdims = 0> (sq, axes)", "{-1}", "4,4", "4,4"));
  EXPECT_EQ(count_ops(*keep0.model->graph, "RMSNormalization"), 0u);
  expect_same_outputs(keep0);
  // Reduced over another axis than the last.
  auto other = simplify_text(rms("23", kRmsDivOne, "ReduceMean <keepdims = 1> (sq, axes)", "{1}", "2,4,4", "2,4,4"));
  EXPECT_EQ(count_ops(*other.model->graph, "RMSNormalization"), 0u);
  expect_same_outputs(other);
  // eps outside the square root: Sqrt(mean) + eps.
  auto outside = simplify_text(rms("23", "s0 = Sqrt(mean)\n  s = Add(s0, eps)\n  n = Div(x, s)"));
  EXPECT_EQ(count_ops(*outside.model->graph, "RMSNormalization"), 0u);
  expect_same_outputs(outside);
  // A scale of [4] on x [2,4,1]: it broadcasts the output to [2,4,4].
  auto grows = simplify_text(rms("23", kRmsDiv, "ReduceMean <keepdims = 1> (sq, axes)", "{-1}", "2,4,1", "2,4,4"));
  EXPECT_EQ(count_ops(*grows.model->graph, "RMSNormalization"), 0u);
  expect_same_outputs(grows);
  // The reasons.
  passes::SimplifyOptions o;
  auto reason = [&](const std::string& text) {
    auto m = test::parse(text);
    for (const auto& [rule, why] : passes::explain(*m, "y", o))
      if (rule == "fuse_rms_normalization") return why;
    return std::string("(not listed)");
  };
  EXPECT_EQ(reason(rms("23", kRmsDivOne, "ReduceMean <keepdims = 0> (sq, axes)", "{-1}", "4,4", "4,4")),
            "the ReduceMean drops the reduced axes (keepdims = 0)");
  EXPECT_EQ(reason(rms("23", kRmsDivOne, "ReduceMean <keepdims = 1> (sq, axes)", "{1}", "2,4,4", "2,4,4")),
            "the ReduceMean's axes are not the last ones");
  EXPECT_EQ(reason(rms("23", kRmsDiv, "ReduceMean <keepdims = 1> (sq, axes)", "{-1}", "2,4,1", "2,4,4")),
            "the scale's dims are not x's trailing dims");
  // Axes as an attribute at opset 23 (removed from ReduceMean at 18): refused, not read.
  EXPECT_EQ(reason(rms("23", kRmsDiv, "ReduceMean <axes = [-1], keepdims = 1> (sq)")),
            "the ReduceMean has axes as an attribute, not valid at opset 23");
}

TEST(FuseRmsNormalization, LeavesLayerNormsToTheirFusion) {
  // w * d / Sqrt(mean(d^2) + eps) with d = x - mean(x) is a LayerNorm: at opset 23 it becomes
  // one LayerNormalization, not an RMSNormalization of d.
  std::string ln = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[2,3,4] x) => (float[2,3,4] y) {
  axes = Constant <value = int64[1] {-1}> ()
  mu = ReduceMean <keepdims = 1> (x, axes)
  d = Sub(x, mu)
  two = Constant <value = float {2}> ()
  sq = Pow(d, two)
  var = ReduceMean <keepdims = 1> (sq, axes)
  eps = Constant <value = float {1e-5}> ()
  a = Add(var, eps)
  s = Sqrt(a)
  n = Div(d, s)
  w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()
  y = Mul(n, w)
}
)";
  auto s = simplify_text(ln);
  EXPECT_EQ(count_ops(*s.model->graph, "RMSNormalization"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "LayerNormalization"), 1u) << s.printed;
  expect_same_outputs(s);
  auto m = test::parse(ln);
  passes::SimplifyOptions o;
  for (const auto& [rule, why] : passes::explain(*m, "y", o))
    if (rule == "fuse_rms_normalization") {
      EXPECT_EQ(why, "x is x' - ReduceMean(x'): a LayerNorm (fuse_layer_normalization)");
    }
}

TEST(FuseRmsNormalization, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[2,4] x) => (float[2,4] y) {
  y = If(c) <then_branch = t () => (float[2,4] o) {
      two = Constant <value = float {2}> ()
      sq = Pow(x, two)
      axes = Constant <value = int64[1] {-1}> ()
      mean = ReduceMean <keepdims = 1> (sq, axes)
      eps = Constant <value = float {1e-5}> ()
      a = Add(eps, mean)
      s = Sqrt(a)
      n = Div(x, s)
      w = Constant <value = float[4] {1, 2, 3, 4}> ()
      o = Mul(n, w)
    }, else_branch = e () => (float[2,4] o2) { o2 = Neg(x) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "RMSNormalization"), 1u) << s.printed;
  expect_same_outputs(s);
}

// HF's float16 LlamaRMSNorm: x.to(float32), x * rsqrt(mean(x^2) + eps), w * x.to(float16).
// `back` casts the float32 normalized value back (to float16 in HF's form).
std::string rms16(const std::string& back = "n16 = Cast <to = 10> (n)", const std::string& x_type = "float16",
                  const std::string& extra_output = "") {
  return R"(
<ir_version: 10, opset_import: ["" : 23]>
g ()" + x_type +
         R"([B,4] x) => (float16[B,4] y)" + extra_output + R"() {
  xf = Cast <to = 1> (x)
  two = Constant <value = float {2}> ()
  sq = Pow(xf, two)
  axes = Constant <value = int64[1] {-1}> ()
  mean = ReduceMean <keepdims = 1> (sq, axes)
  eps = Constant <value = float {1e-6}> ()
  a = Add(mean, eps)
  s = Sqrt(a)
  one = Constant <value = float {1}> ()
  r = Div(one, s)
  n = Mul(xf, r)
  )" + back +
         R"(
  wf = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()
  w = Cast <to = 10> (wf)
  y = Mul(w, n16)
}
)";
}

// The default pipeline with --target `target` (fuse_rms_normalization_fp16 is on for tensorrt).
test::Simplified rms_for_target(const std::string& text, const std::string& target) {
  test::Simplified s;
  s.model = test::parse(text);
  if (!s.model) return s;
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.target = target;
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (r) s.result = r.value();
  s.printed = ir::print_graph(*s.model->graph);
  return s;
}

// Why `rule` does not fire at the node making y, after the passes of `target` ("" the default).
std::string rms_reason(const std::string& text, const std::string& rule, const std::string& target) {
  auto m = test::parse(text);
  passes::SimplifyOptions o;
  o.target = target;
  if (!passes::simplify(*m, o).is_ok()) return "(simplify failed)";
  for (const auto& [r, why] : passes::explain(*m, "y", o))
    if (r == rule) return why;
  return "(not listed)";
}

// By default a float16 x is left as it is (ONNX Runtime's float16 RMSNormalization is slower than
// the decomposition, which it fuses itself); a float32 model is fused by default, not by the
// float16 rule.
TEST(FuseRmsNormalization, Float16IsOffByDefault) {
  for (const char* target : {"", "wasm"}) {
    auto s = rms_for_target(rms16(), target);
    EXPECT_EQ(count_ops(*s.model->graph, "RMSNormalization"), 0u) << target << s.printed;
    EXPECT_EQ(count_ops(*s.model->graph, "Cast"), 2u) << target << s.printed;  // x's and n's (w's folded)
    EXPECT_EQ(rms_reason(rms16(), "fuse_rms_normalization", target),
              "x is float16 or bfloat16: fuse_rms_normalization_fp16 takes it (off by default: ONNX Runtime's "
              "float16 RMSNormalization is slower than the decomposition)");
    expect_same_outputs(s, 2, {{"B", 3}});
  }
  // The float16 rule alone leaves a float32 RMSNorm to fuse_rms_normalization.
  auto f = simplify_text(rms("23", kRmsDiv), {"fuse_rms_normalization_fp16"});
  EXPECT_EQ(count_ops(*f.model->graph, "RMSNormalization"), 0u) << f.printed;
  auto m = test::parse(rms("23", kRmsDiv));
  passes::SimplifyOptions o;
  o.only = {"fuse_rms_normalization_fp16"};
  std::string why = "(not listed)";
  for (const auto& [r, w] : passes::explain(*m, "y", o))
    if (r == "fuse_rms_normalization_fp16") why = w;
  EXPECT_EQ(why, "x is not float16 or bfloat16 (fuse_rms_normalization takes it)");
}

TEST(FuseRmsNormalization, Float16BetweenCastsIsOneNode) {
  for (const char* target : {"tensorrt", "openvino"}) {
    auto t = rms_for_target(rms16(), target);
    EXPECT_EQ(t.nodes(), 1u) << target << t.printed;
    EXPECT_EQ(count_ops(*t.model->graph, "RMSNormalization"), 1u) << target << t.printed;
  }
  auto s = rms_for_target(rms16(), "tensorrt");
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* n = s.model->graph->first_node();
  EXPECT_EQ(n->op_type, "RMSNormalization");
  EXPECT_EQ(n->input(0)->name(), "x");  // the float16 x: the op computes in float32 itself
  EXPECT_EQ(n->attr_int("stash_type", 1), 1);
  EXPECT_EQ(n->attr_int("axis", 0), 1);
  EXPECT_FLOAT_EQ(n->attr_float("epsilon", 0), 1e-6f);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s, 3, {{"B", 5}});
  // Exact values: rows of +-2 normalize to +-1 (rms 2; 1 / sqrt(4 + 1e-6) rounds to 1 in
  // float16), so y is +-w; a row of 3, 4, 0, 0 has rms 2.5.
  std::vector<float> xs{2, -2, 2, -2, 3, 4, 0, 0};
  ir::Tensor x(ir::DataType::kFloat16, {2, 4});
  for (size_t i = 0; i < xs.size(); ++i) {
    const uint16_t h = ops::float_to_half(xs[i]);
    std::memcpy(x.mutable_bytes() + 2 * i, &h, 2);
  }
  eval::Interpreter interp(*s.model);
  auto out = interp.run({{"x", ir::RuntimeValue::of(x)}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  const ir::Tensor& y = out.value()[0].tensor;
  ASSERT_EQ(y.dtype(), ir::DataType::kFloat16);
  std::vector<float> got;
  for (size_t i = 0; i < 8; ++i) {
    uint16_t h;
    std::memcpy(&h, y.bytes() + 2 * i, 2);
    got.push_back(ops::half_to_float(h));
  }
  EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 4), (std::vector<float>{0.5, -1.5, -1, -2}));
  // The decomposition rounds 4 / 2.5 to float16 before the scale, as the op's definition does;
  // the evaluator's kernel (as ONNX Runtime's) rounds once at the end: one unit apart at most.
  auto h = [](float f) { return ops::half_to_float(ops::float_to_half(f)); };
  EXPECT_EQ(got[4], h(0.5f * h(3 / 2.5f)));
  EXPECT_NEAR(got[5], h(1.5f * h(4 / 2.5f)), 1.0 / 512);  // float16's unit in [2, 4)
  EXPECT_NEAR(got[5], 2.4, 1.0 / 512);
  EXPECT_EQ(got[6], 0.0f);
}

// Refusals of the float16 form, with the float16 rule on (--target tensorrt).
TEST(FuseRmsNormalization, Float16Refusals) {
  // Cast back to bfloat16 from a float16 x (then to float16 again): not x's type.
  std::string other = rms16("nb = Cast <to = 16> (n)\n  n16 = Cast <to = 10> (nb)");
  auto so = rms_for_target(other, "tensorrt");
  EXPECT_EQ(count_ops(*so.model->graph, "RMSNormalization"), 0u) << so.printed;
  expect_same_outputs(so, 2, {{"B", 3}});
  // A float32 x cast to float16 after the normalization: the rounding of x's own type differs.
  std::string from32 = rms16("n16 = Cast <to = 10> (n)", "float");
  auto sf = rms_for_target(from32, "tensorrt");
  EXPECT_EQ(count_ops(*sf.model->graph, "RMSNormalization"), 0u) << sf.printed;
  expect_same_outputs(sf, 2, {{"B", 3}});
  for (const char* rule : {"fuse_rms_normalization", "fuse_rms_normalization_fp16"})
    EXPECT_EQ(rms_reason(from32, rule, "tensorrt"),
              "a Cast follows the normalization but x is not Cast(float16 or bfloat16 x, to float)");
  // The float16 normalized value is a graph output too.
  auto shared = rms_for_target(rms16("n16 = Cast <to = 10> (n)", "float16", ", float16[B,4] n16"), "tensorrt");
  EXPECT_EQ(count_ops(*shared.model->graph, "RMSNormalization"), 0u) << shared.printed;
  expect_same_outputs(shared, 2, {{"B", 3}});
}

TEST(FuseRmsNormalization, Float16InsideABranch) {
  std::string body = rms16();
  body = body.substr(body.find("xf = Cast"));
  body = body.substr(0, body.rfind('}'));
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float16[2,4] x) => (float16[2,4] out) {
  out = If(c) <then_branch = t () => (float16[2,4] y) {
  )" + body + R"(
    }, else_branch = e () => (float16[2,4] o2) { o2 = Neg(x) }>
}
)";
  auto s = rms_for_target(text, "tensorrt");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "RMSNormalization"), 1u) << s.printed;
  expect_same_outputs(s);
  // Not by default, in a branch either.
  auto d = rms_for_target(text, "");
  ASSERT_TRUE(d.model->graph->first_node() && d.model->graph->first_node()->op_type == "If") << d.printed;
  EXPECT_EQ(count_ops(*d.model->graph->first_node()->subgraphs()[0], "RMSNormalization"), 0u) << d.printed;
}

// A decomposition written in float16 throughout (no Casts of x; the constants are float16 once
// folded): also the float16 rule's, with the op's float32 stage instead of the decomposition's
// float16 steps (the check's float16 tolerance).
TEST(FuseRmsNormalization, Float16WithoutCastsIsTheFloat16Rules) {
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float16[B,4] x) => (float16[B,4] y) {
  twof = Constant <value = float {2}> ()
  two = Cast <to = 10> (twof)
  sq = Pow(x, two)
  axes = Constant <value = int64[1] {-1}> ()
  mean = ReduceMean <keepdims = 1> (sq, axes)
  epsf = Constant <value = float {0.001}> ()
  eps = Cast <to = 10> (epsf)
  a = Add(mean, eps)
  s = Sqrt(a)
  n = Div(x, s)
  wf = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()
  w = Cast <to = 10> (wf)
  y = Mul(w, n)
}
)";
  auto d = rms_for_target(text, "");
  EXPECT_EQ(count_ops(*d.model->graph, "RMSNormalization"), 0u) << d.printed;
  auto t = rms_for_target(text, "tensorrt");
  ASSERT_EQ(t.nodes(), 1u) << t.printed;
  EXPECT_EQ(t.model->graph->first_node()->op_type, "RMSNormalization");
  EXPECT_EQ(t.model->graph->first_node()->input(0)->name(), "x");
  expect_same_outputs(t, 2, {{"B", 3}});
}

}  // namespace
}  // namespace onnxtrim
