// Unit tests of the smaller families: training optimizers, DynamicQuantizeLinear, float8e8m0
// casts, ai.onnx.ml ops (LabelEncoder, Binarizer, ArrayFeatureExtractor, TreeEnsemble) and
// SequenceMap. Random generation is in random_test.cc, bool reductions in reduce_test.cc,
// Attention in nn_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../unit/test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;

Result<std::vector<RuntimeValue>> run(const std::string& text, const std::map<std::string, ir::Tensor>& feeds) {
  auto m = test::parse(text);
  if (!m) return Status(ErrorCode::kInvalidModel, "parse failed");
  eval::Interpreter interp(*m);
  std::map<std::string, RuntimeValue> f;
  for (const auto& [k, v] : feeds) f[k] = RuntimeValue::of(v);
  return interp.run(f);
}

template <typename T>
std::vector<T> vals(const Result<std::vector<RuntimeValue>>& r, size_t i = 0) {
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r.is_ok()) return {};
  return r.value()[i].tensor.to_vector<T>();
}

ir::Tensor strings(std::vector<int64_t> dims, std::vector<std::string> v) {
  ir::Tensor t(ir::DataType::kString, std::move(dims));
  t.strings() = std::move(v);
  return t;
}

// ------------------------------------------------------------------ training optimizers

TEST(TrainingOps, AdagradStep) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x, float[2] g, float[2] h) => (float[2] x2, float[2] h2) {
  x2, h2 = ai.onnx.preview.training.Adagrad<decay_factor: float = 1.0, epsilon: float = 0.0, norm_coefficient: float = 0.0>(r, t, x, g, h)
})",
               {{"r", make_tensor<float>({}, {1.0f})},
                {"t", make_tensor<int64_t>({}, {1})},
                {"x", make_tensor<float>({2}, {1, 2})},
                {"g", make_tensor<float>({2}, {3, 4})},
                {"h", make_tensor<float>({2}, {16, 9})}});
  // r = 1 / (1 + 1) = 0.5; H' = [25, 25]; X' = X - 0.5 * G / 5.
  EXPECT_EQ(vals<float>(r, 0), (std::vector<float>{0.7f, 1.6f}));
  EXPECT_EQ(vals<float>(r, 1), (std::vector<float>{25, 25}));
}

TEST(TrainingOps, MomentumStandardAndNesterov) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
g (double r, int64 t, double[1] x, double[1] g, double[1] v) => (double[1] x2, double[1] v2) {
  x2, v2 = ai.onnx.preview.training.Momentum<alpha: float = 0.5, beta: float = 2.0, mode: string = "MODE", norm_coefficient: float = 0.0>(r, t, x, g, v)
})";
  std::map<std::string, ir::Tensor> feeds{{"r", make_tensor<double>({}, {0.25})},
                                          {"t", make_tensor<int64_t>({}, {3})},
                                          {"x", make_tensor<double>({1}, {1})},
                                          {"g", make_tensor<double>({1}, {2})},
                                          {"v", make_tensor<double>({1}, {4})}};
  std::string standard = text, nesterov = text;
  standard.replace(standard.find("MODE"), 4, "standard");
  nesterov.replace(nesterov.find("MODE"), 4, "nesterov");
  // V' = 0.5 * 4 + 2 * 2 = 6; standard: X' = 1 - 0.25 * 6; nesterov: X' = 1 - 0.25 * (2 + 0.5 * 6).
  auto a = run(standard, feeds);
  EXPECT_EQ(vals<double>(a, 0), (std::vector<double>{-0.5}));
  EXPECT_EQ(vals<double>(a, 1), (std::vector<double>{6}));
  auto b = run(nesterov, feeds);
  EXPECT_EQ(vals<double>(b, 0), (std::vector<double>{-0.25}));
  // T = 0: beta is taken as 1.
  feeds["t"] = make_tensor<int64_t>({}, {0});
  EXPECT_EQ(vals<double>(run(standard, feeds), 1), (std::vector<double>{4}));
}

TEST(TrainingOps, AdamFirstStepUsesRawRate) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
g (double r, int64 t, double[1] x, double[1] g, double[1] v, double[1] h) => (double[1] x2, double[1] v2, double[1] h2) {
  x2, v2, h2 = ai.onnx.preview.training.Adam<alpha: float = 0.5, beta: float = 0.75>(r, t, x, g, v, h)
})",
               {{"r", make_tensor<double>({}, {1.0})},
                {"t", make_tensor<int64_t>({}, {0})},
                {"x", make_tensor<double>({1}, {3})},
                {"g", make_tensor<double>({1}, {2})},
                {"v", make_tensor<double>({1}, {0})},
                {"h", make_tensor<double>({1}, {0})}});
  // V' = 0.5 * 2 = 1; H' = 0.25 * 4 = 1; X' = 3 - 1 * 1 / 1.
  EXPECT_EQ(vals<double>(r, 0), (std::vector<double>{2}));
  EXPECT_EQ(vals<double>(r, 1), (std::vector<double>{1}));
  EXPECT_EQ(vals<double>(r, 2), (std::vector<double>{1}));
}

TEST(TrainingOps, MismatchedStateShapeIsAnError) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x, float[2] g, float[3] h) => (float[2] x2) {
  x2 = ai.onnx.preview.training.Adagrad(r, t, x, g, h)
})",
               {{"r", make_tensor<float>({}, {1.0f})},
                {"t", make_tensor<int64_t>({}, {1})},
                {"x", make_tensor<float>({2}, {1, 2})},
                {"g", make_tensor<float>({2}, {3, 4})},
                {"h", make_tensor<float>({3}, {1, 1, 1})}});
  EXPECT_FALSE(r.is_ok());
}

// ------------------------------------------------------------------ DynamicQuantizeLinear

TEST(DynamicQuantizeLinear, ScaleZeroPointAndTiesToEven) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 11]>
g (float[3] x) => (uint8[3] y, float s, uint8 z) { y, s, z = DynamicQuantizeLinear(x) })",
               {{"x", make_tensor<float>({3}, {-2.5f, 252.5f, 3.5f})}});
  // Range 255 gives scale 1; zero point round(2.5) = 2 (ties to even); -2.5 -> -2 + 2 = 0,
  // 252.5 -> 252 + 2, 3.5 -> 4 + 2.
  EXPECT_EQ(vals<float>(r, 1), (std::vector<float>{1.0f}));
  EXPECT_EQ(vals<uint8_t>(r, 2), (std::vector<uint8_t>{2}));
  EXPECT_EQ(vals<uint8_t>(r, 0), (std::vector<uint8_t>{0, 254, 6}));
  // Values past the range saturate: with x = [-1, 0] the scale is 1/255 and zero point 255.
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 11]>
g (float[2] x) => (uint8[2] y, float s, uint8 z) { y, s, z = DynamicQuantizeLinear(x) })",
               {{"x", make_tensor<float>({2}, {-1, 0})}});
  EXPECT_EQ(vals<uint8_t>(s, 2), (std::vector<uint8_t>{255}));
  EXPECT_EQ(vals<uint8_t>(s, 0), (std::vector<uint8_t>{0, 255}));
}

TEST(DynamicQuantizeLinear, AllZeroInputAndEmptyInput) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 11]>
g (float[N] x) => (uint8[N] y, float s, uint8 z) { y, s, z = DynamicQuantizeLinear(x) })";
  auto r = run(text, {{"x", make_tensor<float>({3}, {0, 0, 0})}});
  EXPECT_EQ(vals<uint8_t>(r, 0), (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ(vals<float>(r, 1), (std::vector<float>{0}));
  auto e = run(text, {{"x", make_tensor<float>({0}, {})}});
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e.value()[0].tensor.numel(), 0);
}

// ------------------------------------------------------------------ Cast to/from float8e8m0

TEST(CastE8M0, RoundModes) {
  const char* text = R"(<ir_version: 11, opset_import: ["" : 25]>
g (float[4] x) => (uint8[4] y) { y = Cast<to = 24, round_mode: string = "MODE">(x) })";  // y is float8e8m0; the text
                                                                                         // parser predates it
  auto codes = [&](const std::string& mode) {
    std::string t = text;
    t.replace(t.find("MODE"), 4, mode);
    return vals<uint8_t>(run(t, {{"x", make_tensor<float>({4}, {1.0f, 3.0f, 2.9f, 0.0f})}}));
  };
  // 1 = 2^0 is code 127; 3 = 1.5 * 2: up 4, down 2, nearest (tie) up 4; 2.9: nearest 2.
  // 0 saturates to the smallest value (code 0).
  EXPECT_EQ(codes("up"), (std::vector<uint8_t>{127, 129, 129, 0}));
  EXPECT_EQ(codes("down"), (std::vector<uint8_t>{127, 128, 128, 0}));
  EXPECT_EQ(codes("nearest"), (std::vector<uint8_t>{127, 129, 128, 0}));
}

TEST(CastE8M0, DecodeAndNaN) {
  ir::Tensor x(ir::DataType::kFloat8E8M0, {3});
  x.mutable_bytes()[0] = 127;
  x.mutable_bytes()[1] = 130;
  x.mutable_bytes()[2] = 255;
  // x is declared uint8 (the text parser predates float8e8m0) and fed as float8e8m0.
  auto r = run(R"(<ir_version: 11, opset_import: ["" : 25]>
g (uint8[3] x) => (float[3] y) { y = Cast<to = 1>(x) })",
               {{"x", x}});
  auto v = vals<float>(r);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 8.0f);
  EXPECT_TRUE(std::isnan(v[2]));
}

// ------------------------------------------------------------------ ai.onnx.ml

TEST(MlOps, LabelEncoderStringsToInts) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 4]>
g (string[4] x) => (int64[4] y) {
  y = ai.onnx.ml.LabelEncoder<keys_strings = ["a", "b"], values_int64s = [5, 6], default_int64 = -7>(x)
})",
               {{"x", strings({4}, {"b", "zz", "a", ""})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{6, -7, 5, -7}));
}

TEST(MlOps, LabelEncoderFloatKeysToStringsWithDefault) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 2]>
g (float[3] x) => (string[3] y) {
  y = ai.onnx.ml.LabelEncoder<keys_floats = [0.5, 1.5], values_strings = ["lo", "hi"]>(x)
})",
               {{"x", make_tensor<float>({3}, {1.5f, 0.5f, 2.0f})}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.strings(), (std::vector<std::string>{"hi", "lo", "_Unused"}));
}

TEST(MlOps, BinarizerAndArrayFeatureExtractor) {
  auto b = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (float[4] x) => (float[4] y) { y = ai.onnx.ml.Binarizer<threshold = 0.5>(x) })",
               {{"x", make_tensor<float>({4}, {0.5f, 0.6f, -1.0f, 2.0f})}});
  EXPECT_EQ(vals<float>(b), (std::vector<float>{0, 1, 0, 1}));
  auto a = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (int64[2,3] x, int64[2] i) => (int64[2,2] y) { y = ai.onnx.ml.ArrayFeatureExtractor(x, i) })",
               {{"x", make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"i", make_tensor<int64_t>({2}, {2, 0})}});
  EXPECT_EQ(vals<int64_t>(a), (std::vector<int64_t>{3, 1, 6, 4}));
  auto bad = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (int64[2,3] x, int64[1] i) => (int64[2,1] y) { y = ai.onnx.ml.ArrayFeatureExtractor(x, i) })",
                 {{"x", make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"i", make_tensor<int64_t>({1}, {3})}});
  EXPECT_FALSE(bad.is_ok());
}

TEST(MlOps, TreeEnsembleStumpWithMissingValues) {
  // One split: x0 <= 0.5 -> leaf 0 (weight 1) else leaf 1 (weight 2); NaN goes the true way.
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 5]>
g (float[3,1] x) => (float[3,1] y) {
  y = ai.onnx.ml.TreeEnsemble<n_targets = 1, tree_roots = [0], nodes_featureids = [0],
      nodes_modes = uint8[1] {0}, nodes_splits = float[1] {0.5},
      nodes_truenodeids = [0], nodes_trueleafs = [1], nodes_falsenodeids = [1], nodes_falseleafs = [1],
      nodes_missing_value_tracks_true = [1],
      leaf_targetids = [0, 0], leaf_weights = float[2] {1.0, 2.0}>(x)
})",
               {{"x", make_tensor<float>({3, 1}, {0.0f, 1.0f, NAN})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{1, 2, 1}));
}

// ------------------------------------------------------------------ Where

// Broadcasting binary kernels walk the output a row of the last axis at a time: every pair of
// shapes (either operand broadcast along the row or across rows, of lower rank, of one
// element, empty) gives the definition's elements: out[i] = a[i mod a's dims] - b[...].
TEST(BroadcastBinary, RowsMatchTheDefinition) {
  struct Case {
    ops::Dims a, b;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 4}, {4}},
                                         {{2, 3, 4}, {3, 1}},
                                         {{2, 1, 4}, {3, 1}},
                                         {{4}, {2, 3, 4}},
                                         {{1}, {2, 3}},
                                         {{2, 3, 1}, {1, 1, 5}},
                                         {{3, 1}, {1, 1}},
                                         {{2, 1, 3, 1}, {1, 4, 1, 2}},
                                         {{2, 0, 3}, {1, 3}}}) {
    ops::Dims out = c.a.size() >= c.b.size() ? c.a : c.b;
    const ops::Dims& lo = c.a.size() >= c.b.size() ? c.b : c.a;
    for (size_t k = 0; k < lo.size(); ++k) {
      auto& d = out[out.size() - lo.size() + k];
      if (d == 1) d = lo[k];  // else lo[k] is 1 or d
    }
    auto filled = [](const ops::Dims& d, float base) {
      std::vector<float> v(static_cast<size_t>(ops::numel_of(d)));
      for (size_t i = 0; i < v.size(); ++i) v[i] = base + static_cast<float>(i) * 0.5f;
      return make_tensor<float>(d, v);
    };
    ir::Tensor a = filled(c.a, 1.0f), b = filled(c.b, 100.0f);
    ir::Tensor y =
        ops::broadcast_binary<float, float>(a, b, out, ir::DataType::kFloat, [](float x, float z) { return x - z; });
    ASSERT_EQ(y.dims(), out);
    // The definition: each output index mapped to each operand's index.
    auto at = [&](const ir::Tensor& t, const std::vector<int64_t>& idx) {
      const ops::Dims& d = t.dims();
      int64_t off = 0;
      for (size_t k = 0; k < d.size(); ++k) off = off * d[k] + (d[k] == 1 ? 0 : idx[idx.size() - d.size() + k]);
      return t.data<float>()[off];
    };
    std::vector<int64_t> idx(out.size(), 0);
    for (int64_t i = 0; i < ops::numel_of(out); ++i) {
      ASSERT_EQ(y.data<float>()[i], at(a, idx) - at(b, idx)) << i;
      for (size_t k = out.size(); k-- > 0;) {
        if (++idx[k] < out[k]) break;
        idx[k] = 0;
      }
    }
  }
}

}  // namespace
}  // namespace onnxtrim
