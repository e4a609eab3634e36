// The cast family (src/ops/cast/): DynamicQuantizeLinear (scale, zero point, ties to even,
// saturation, empty and all-zero inputs) and Cast to and from float8e8m0 (round modes, NaN).
// The integer kernels' DynamicQuantizeLinear against the double formula is in quantized_test.cc.
#include <gtest/gtest.h>

#include <cmath>
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
