// fuse_group_normalization: torch's GroupNorm export becomes GroupNormalization-21 for the targets
// that take it (tensorrt, openvino), never by default; exact values, refusals, a graph-output case
// and a subgraph case.
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

// The simplified model under `target` (or with --enable), with the test checks on.
test::Simplified simplify_for(const std::string& text, const std::string& target,
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

// torch 1.13's nn.GroupNorm(2, 4) on x [B, 4, 2, 3], with gamma/beta as torch unsqueezes them.
std::string group_norm(const std::string& opset = "21", const std::string& in_scale = "1, 1",
                       const std::string& first_shape = "0, 2, -1", const std::string& gamma_type = "float[4,1,1]",
                       const std::string& extra_out = "") {
  return R"(
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[B,4,2,3] x) => (float[B,4,2,3] y)" +
         extra_out + R"() {
  s1 = Constant <value = int64[3] {)" +
         first_shape + R"(}> ()
  r1 = Reshape(x, s1)
  sc = Constant <value = float[2] {)" +
         in_scale + R"(}> ()
  bi = Constant <value = float[2] {0, 0}> ()
  n = InstanceNormalization <epsilon = 0.001> (r1, sc, bi)
  s2 = Shape(x)
  r2 = Reshape(n, s2)
  gamma = Constant <value = )" +
         gamma_type + R"( {0.5, 2, -1, 3}> ()
  m = Mul(r2, gamma)
  beta = Constant <value = float[4,1,1] {1, 0, 0.25, -2}> ()
  y = Add(m, beta)
}
)";
}

std::string group_norm_reason(const std::string& text, const std::string& node) {
  return test::explain_reason(text, "fuse_group_normalization", node, "tensorrt");
}

TEST(FuseGroupNormalization, TorchExportIsOneGroupNormalizationForTensorRT) {
  for (const char* target : {"tensorrt", "openvino"}) {
    auto s = simplify_for(group_norm(), target);
    ASSERT_EQ(s.nodes(), 1u) << s.printed;
    const ir::Node* gn = s.model->graph->first_node();
    EXPECT_EQ(gn->op_type, "GroupNormalization");
    EXPECT_EQ(gn->attr_int("num_groups", 0), 2);
    EXPECT_FLOAT_EQ(gn->attr_float("epsilon", 0), 0.001f);
    EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // the graph output keeps its name
    test::expect_same_outputs(s, 3, {{"B", 2}});
  }
  // Exact values: x = [1, 4, 2, 3] counting 0..23. Group 0 holds 0..11 (mean 5.5, variance
  // 143/12), group 1 holds 12..23 (same spread); y = (x - mean) / sqrt(var + 0.001) * gamma_c + beta_c.
  auto s = simplify_for(group_norm(), "tensorrt");
  std::vector<float> xs(24);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i);
  eval::Interpreter interp(*s.model);
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({1, 4, 2, 3}, xs))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  const std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  const double gamma[4] = {0.5, 2, -1, 3}, beta[4] = {1, 0, 0.25, -2};
  const double sd = std::sqrt(143.0 / 12 + 0.001);
  for (size_t i = 0; i < 24; ++i) {
    const size_t c = i / 6;
    const double mean = i < 12 ? 5.5 : 17.5;
    EXPECT_NEAR(y[i], (static_cast<double>(i) - mean) / sd * gamma[c] + beta[c], 2e-6) << i;
  }
  EXPECT_NEAR(y[0], -5.5 / sd * 0.5 + 1, 2e-6);
}

TEST(FuseGroupNormalization, OffByDefaultAndForOtherTargets) {
  // ONNX Runtime has no GroupNormalization kernel: the default pipeline (and wasm, coreml) keeps
  // the InstanceNormalization form.
  for (const char* target : {"", "wasm", "coreml"}) {
    auto s = simplify_for(group_norm(), target);
    EXPECT_EQ(count_ops(*s.model->graph, "GroupNormalization"), 0u) << target;
    EXPECT_EQ(count_ops(*s.model->graph, "InstanceNormalization"), 1u) << target;
  }
  // --enable chooses it without a target.
  auto s = simplify_for(group_norm(), "", {"fuse_group_normalization"});
  EXPECT_EQ(count_ops(*s.model->graph, "GroupNormalization"), 1u) << s.printed;
  test::expect_same_outputs(s, 2, {{"B", 3}});
}

TEST(FuseGroupNormalization, WithoutScaleOrBias) {
  // affine=False after eliminate_identity_elements: the Reshape back is the last node.
  auto s = simplify_for(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[B,6,5] x) => (float[B,6,5] y) {
  s1 = Constant <value = int64[3] {0, 3, -1}> ()
  r1 = Reshape(x, s1)
  sc = Constant <value = float[3] {1, 1, 1}> ()
  bi = Constant <value = float[3] {0, 0, 0}> ()
  n = InstanceNormalization(r1, sc, bi)
  s2 = Shape(x)
  y = Reshape(n, s2)
}
)",
                        "tensorrt");
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->first_node()->attr_int("num_groups", 0), 3);
  test::expect_same_outputs(s, 2, {{"B", 2}});
  // A scalar bias (torch's Add of zeros, kept because it is the graph output) is per channel too.
  auto b = simplify_for(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[2,6,5] x) => (float[2,6,5] y) {
  s1 = Constant <value = int64[3] {2, 3, 10}> ()
  r1 = Reshape(x, s1)
  sc = Constant <value = float[3] {1, 1, 1}> ()
  bi = Constant <value = float[3] {0, 0, 0}> ()
  n = InstanceNormalization(r1, sc, bi)
  s2 = Constant <value = int64[3] {2, 6, 5}> ()
  r2 = Reshape(n, s2)
  z = Constant <value = float {0.5}> ()
  y = Add(r2, z)
}
)",
                        "tensorrt");
  ASSERT_EQ(b.nodes(), 1u) << b.printed;
  test::expect_same_outputs(b);
}

TEST(FuseGroupNormalization, DoubleKeepsItsStatisticsInDouble) {
  // stash_type 11: the statistics in double, as InstanceNormalization computes them for a double x.
  auto s = simplify_for(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (double[2,4,3] x) => (double[2,4,3] y) {
  s1 = Constant <value = int64[3] {2, 2, 6}> ()
  r1 = Reshape(x, s1)
  sc = Constant <value = double[2] {1, 1}> ()
  bi = Constant <value = double[2] {0, 0}> ()
  n = InstanceNormalization(r1, sc, bi)
  s2 = Constant <value = int64[3] {2, 4, 3}> ()
  r2 = Reshape(n, s2)
  w = Constant <value = double[4,1] {1.5, -2, 0.25, 3}> ()
  y = Mul(r2, w)
}
)",
                        "tensorrt");
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* gn = s.model->graph->first_node();
  EXPECT_EQ(gn->attr_int("stash_type", 1), 11);
  test::expect_same_outputs(s);
}

TEST(FuseGroupNormalization, Refusals) {
  // Before opset 21 GroupNormalization takes scale and bias per group.
  auto old = simplify_for(group_norm("18"), "tensorrt");
  EXPECT_EQ(count_ops(*old.model->graph, "GroupNormalization"), 0u);
  EXPECT_EQ(group_norm_reason(group_norm("18"), "y"), "opset 18 < 21 has no GroupNormalization with per-channel scale");
  // The InstanceNormalization scales its groups: not torch's GroupNorm.
  auto scaled = simplify_for(group_norm("21", "1, 2"), "tensorrt");
  EXPECT_EQ(count_ops(*scaled.model->graph, "GroupNormalization"), 0u);
  test::expect_same_outputs(scaled, 2, {{"B", 2}});
  EXPECT_EQ(group_norm_reason(group_norm("21", "1, 2"), "y"),
            "the InstanceNormalization's scale is not a constant of ones of the group count");
  // The first Reshape splits each sample in two: [2B, 2, 6] normalizes halves of groups.
  auto halves = simplify_for(group_norm("21", "1, 1", "-1, 2, 6"), "tensorrt");
  EXPECT_EQ(count_ops(*halves.model->graph, "GroupNormalization"), 0u) << halves.printed;
  test::expect_same_outputs(halves, 2, {{"B", 2}});
  EXPECT_EQ(group_norm_reason(group_norm("21", "1, 1", "-1, 2, 6"), "y"),
            "the first Reshape's output is not [x's dim 0, G, K] with a known G");
  // A gamma along the last axis ([4] lines up with x's width, not its channels).
  const std::string last_axis = group_norm("21", "1, 1", "0, 2, -1", "float[1,1,1,4]");
  EXPECT_EQ(group_norm_reason(last_axis, "y"), "the scale is not per channel ([C, 1, ..] or one value)");
  // The InstanceNormalization's output is also a graph output: it must stay.
  const std::string shared = group_norm("21", "1, 1", "0, 2, -1", "float[4,1,1]", ", float[B,2,12] n");
  auto sh = simplify_for(shared, "tensorrt");
  EXPECT_EQ(count_ops(*sh.model->graph, "GroupNormalization"), 0u) << sh.printed;
  test::expect_same_outputs(sh, 2, {{"B", 2}});
}

TEST(FuseGroupNormalization, InsideALoopBody) {
  auto s = simplify_for(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[1,4,3] x, int64 n) => (float[1,4,3] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <body = b (int64 i, bool c, float[1,4,3] acc) => (bool co, float[1,4,3] out) {
      co = Identity(c)
      s1 = Constant <value = int64[3] {1, 2, 6}> ()
      r1 = Reshape(acc, s1)
      sc = Constant <value = float[2] {1, 1}> ()
      bi = Constant <value = float[2] {0, 0}> ()
      nn = InstanceNormalization(r1, sc, bi)
      s2 = Constant <value = int64[3] {1, 4, 3}> ()
      r2 = Reshape(nn, s2)
      w = Constant <value = float[4,1] {1, 2, 3, 4}> ()
      out = Mul(w, r2)
    }>
}
)",
                        "openvino");
  const ir::Node* loop = s.model->graph->first_node();
  ASSERT_TRUE(loop && loop->op_type == "Loop") << s.printed;
  const ir::Graph& body = *loop->subgraphs()[0];
  EXPECT_EQ(count_ops(body, "GroupNormalization"), 1u) << s.printed;
  EXPECT_EQ(count_ops(body, "InstanceNormalization"), 0u);
  test::expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim
