// The report's standard-op fusions (Report::fusions): what a run fused, and on a model whose
// opset is older than a fusion's op, how many blocks --opset N would fuse; in the text and JSON.
#include <gtest/gtest.h>

#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim {
namespace {

// Two RMSNorms (Llama's form) and a tanh-GELU-free Mul: at opset 17 nothing fuses. With `half`,
// HF's float16 form (x float16, cast to float and the result back to float16 before the scale:
// what fuse_rms_normalization_fp16 fuses).
std::string rms_model(int opset, bool half = false) {
  std::string block = half ? R"(
  f{i} = Cast <to = 1> (x{i})
  sq{i} = Pow(f{i}, two)
  mean{i} = ReduceMean <keepdims = 1, axes = [-1]> (sq{i})
  a{i} = Add(mean{i}, eps)
  s{i} = Sqrt(a{i})
  r{i} = Div(one, s{i})
  n{i} = Mul(f{i}, r{i})
  h{i} = Cast <to = 10> (n{i})
  x{j} = Mul(w16, h{i}))"
                           : R"(
  sq{i} = Pow(x{i}, two)
  mean{i} = ReduceMean <keepdims = 1, axes = [-1]> (sq{i})
  a{i} = Add(mean{i}, eps)
  s{i} = Sqrt(a{i})
  r{i} = Div(one, s{i})
  n{i} = Mul(x{i}, r{i})
  x{j} = Mul(w, n{i}))";
  std::string body;
  for (int i = 0; i < 2; ++i) {
    std::string b = block;
    for (size_t p; (p = b.find("{i}")) != std::string::npos;) b.replace(p, 3, std::to_string(i));
    for (size_t p; (p = b.find("{j}")) != std::string::npos;) b.replace(p, 3, std::to_string(i + 1));
    body += b;
  }
  const std::string x = half ? "float16" : "float";
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng (" + x + "[2,3,4] x0) => (" + x +
         R"([2,3,4] x2) {
  two = Constant <value = float {2}> ()
  eps = Constant <value = float {1e-6}> ()
  one = Constant <value = float {1}> ()
  w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ()
  w16 = Cast <to = 10> (w))" +
         body + "\n}\n";
}

const Fusion* find(const Report& r, const std::string& op) {
  for (const Fusion& f : r.fusions)
    if (f.op == op) return &f;
  return nullptr;
}

TEST(ReportFusions, OlderOpsetSaysWhatTheNewOneWouldFuse) {
  Model m = Model::parse_text(rms_model(17));
  Report r = simplify(m, Options{});
  const Fusion* f = find(r, "RMSNormalization");
  ASSERT_TRUE(f) << r.to_text();
  EXPECT_EQ(f->fused, 0);
  EXPECT_EQ(f->would_fuse, 2);
  EXPECT_EQ(f->opset, 23);
  EXPECT_EQ(f->pass, "fuse_rms_normalization");
  EXPECT_NE(r.to_text().find("--opset 23 would fuse 2 RMSNormalization (ONNX Runtime >= 1.23)"), std::string::npos)
      << r.to_text();
  EXPECT_NE(r.to_json().find("\"would_fuse\": 2"), std::string::npos) << r.to_json();
}

TEST(ReportFusions, NewOpsetFusesAndCounts) {
  Model m = Model::parse_text(rms_model(17));
  Options o;
  o.opset = 23;
  Report r = simplify(m, o);
  const Fusion* f = find(r, "RMSNormalization");
  ASSERT_TRUE(f) << r.to_text();
  EXPECT_EQ(f->fused, 2);
  EXPECT_EQ(f->would_fuse, 0);
  EXPECT_NE(r.to_text().find("standard ops fused: 2 RMSNormalization"), std::string::npos) << r.to_text();
  EXPECT_EQ(r.to_text().find("would fuse"), std::string::npos) << r.to_text();
}

// The hint counts only the forms this run's passes would fuse: the float16 form is its own pass,
// off by default (ONNX Runtime runs it slower) and on for --target tensorrt; --skip drops a pass.
TEST(ReportFusions, WouldFuseCountsOnlyThePassesTheRunSelects) {
  Model half = Model::parse_text(rms_model(17, true));
  Report r = simplify(half, Options{});
  EXPECT_FALSE(find(r, "RMSNormalization")) << r.to_text();

  Model half_trt = Model::parse_text(rms_model(17, true));
  Options trt;
  trt.target = "tensorrt";
  r = simplify(half_trt, trt);
  const Fusion* f = find(r, "RMSNormalization");
  ASSERT_TRUE(f) << r.to_text();
  EXPECT_EQ(f->would_fuse, 2);
  EXPECT_EQ(f->fused, 0);

  Model skipped = Model::parse_text(rms_model(17));
  Options skip;
  skip.skip = {"fuse_rms_normalization"};
  r = simplify(skipped, skip);
  EXPECT_FALSE(find(r, "RMSNormalization")) << r.to_text();
}

// GPT-J's rotary (gptj_tiny, an opset-17 export; applied before the heads' Transpose) is fuse_rotary_embedding_bshd's
// form: counted under RotaryEmbedding, and not for --target wasm, which leaves RotaryEmbedding out.
TEST(ReportFusions, WouldFuseCountsEveryFormOfTheOp) {
  const std::string path = std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/gptj_tiny.onnx";
  Model m = Model::load(path);
  Options o;
  o.verify = Options::Verify::kOff;
  Report r = simplify(m, o);
  const Fusion* f = find(r, "RotaryEmbedding");
  ASSERT_TRUE(f) << r.to_text();
  EXPECT_EQ(f->would_fuse, 4) << r.to_text();  // q and k in each of the two layers

  Model w = Model::load(path);
  o.target = "wasm";
  r = simplify(w, o);
  EXPECT_FALSE(find(r, "RotaryEmbedding")) << r.to_text();
}

TEST(ReportFusions, NothingToSayNoLines) {
  Model m = Model::parse_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) { y = Relu(x) }
)");
  Report r = simplify(m, Options{});
  EXPECT_TRUE(r.fusions.empty());
  EXPECT_EQ(r.to_text().find("standard ops"), std::string::npos);
}

}  // namespace
}  // namespace onnxtrim
