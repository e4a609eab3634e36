// The cast family (src/ops/cast/): DynamicQuantizeLinear (scale, zero point, ties to even,
// saturation, empty and all-zero inputs) and Cast to and from float8e8m0 (round modes, NaN).
// DynamicQuantizeLinear's rounding of halves and 100,003 values against the double formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;
using test::run;
using test::vals;

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

TEST(DynamicQuantizeLinear, RoundsHalfToEven) {
  // Range [-100, 155]: scale 1, zero point 100; every .5 rounds to even.
  auto r =
      run("<ir_version: 8, opset_import: [\"\" : 13]> g (float[10] x) => (uint8[10] y, float s, uint8 z) { y, s, z = "
          "DynamicQuantizeLinear(x) }",
          {{"x", make_tensor<float>({10}, {-100, 155, -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 100.5f, 101.5f})}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.to_vector<uint8_t>(),
            (std::vector<uint8_t>{0, 255, 98, 98, 100, 100, 102, 102, 200, 202}));
  EXPECT_EQ(r.value()[1].tensor.to_vector<float>(), (std::vector<float>{1}));
  EXPECT_EQ(r.value()[2].tensor.to_vector<uint8_t>(), (std::vector<uint8_t>{100}));
}

TEST(DynamicQuantizeLinear, MatchesTheDoubleFormula) {
  // y = saturate(round_half_even(double(x / scale)) + zp), scale and zp as the spec computes them.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-3.0f, 7.0f);
  std::vector<float> x(100003);
  for (auto& v : x) v = d(rng);
  x[5] = 0.0f;
  x[6] = -0.0f;
  auto r =
      run("<ir_version: 8, opset_import: [\"\" : 13]> g (float[100003] x) => (uint8[100003] y) { y, s, z = "
          "DynamicQuantizeLinear(x) }",
          {{"x", make_tensor<float>({static_cast<int64_t>(x.size())}, x)}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  float lo = 0, hi = 0;
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  float scale = (hi - lo) / 255.0f;
  double zp = std::clamp(std::nearbyint(-static_cast<double>(lo) / scale), 0.0, 255.0);
  std::vector<uint8_t> got = r.value()[0].tensor.to_vector<uint8_t>();
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double q = std::clamp(std::nearbyint(static_cast<double>(x[i] / scale)) + zp, 0.0, 255.0);
    bad += got[i] != static_cast<uint8_t>(q);
  }
  EXPECT_EQ(bad, 0u);
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

}  // namespace
}  // namespace onnxtrim
