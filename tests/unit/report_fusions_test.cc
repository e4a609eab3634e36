// The report's standard-op fusions (Report::fusions): what a run fused, and on a model whose
// opset is older than a fusion's op, how many blocks --opset N would fuse; in the text and JSON.
#include <gtest/gtest.h>

#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim {
namespace {

// Two RMSNorms (Llama's form) and a tanh-GELU-free Mul: at opset 17 nothing fuses.
std::string rms_model(int opset) {
  std::string block = R"(
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
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + R"(]>
g (float[2,3,4] x0) => (float[2,3,4] x2) {
  two = Constant <value = float {2}> ()
  eps = Constant <value = float {1e-6}> ()
  one = Constant <value = float {1}> ()
  w = Constant <value = float[4] {0.5, 1.5, -1, 2}> ())" +
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
