// Unit tests of the image family: Resize (modes, coordinate transforms, axes, sizes policies),
// Upsample, and their shape rules.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;
using test::run;
using test::vals;

TEST(ImageResize, LinearAndNearestHalfPixel) {
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({1, 2}, {1, 3})}};
  // half_pixel: output 0..3 samples input -0.25, 0.25, 0.75, 1.25 (clamped at the edges).
  auto lin = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2] x) => (float[1,4] y) { sc = Constant <value = float[2] {1, 2}> () y = Resize <mode = "linear"> (x, , sc) })",
                 feeds);
  EXPECT_EQ(vals<float>(lin), (std::vector<float>{1, 1.5f, 2.5f, 3}));
  auto near = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2] x) => (float[1,4] y) { sc = Constant <value = float[2] {1, 2}> () y = Resize (x, , sc) })",
                  feeds);
  EXPECT_EQ(vals<float>(near), (std::vector<float>{1, 1, 3, 3}));
}

TEST(ImageResize, NearestCopiesInt64Exactly) {
  const int64_t big = (int64_t{1} << 60) + 1;
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (int64[2] x) => (int64[4] y) { sz = Constant <value = int64[1] {4}> () y = Resize <nearest_mode = "floor", coordinate_transformation_mode = "asymmetric"> (x, , , sz) })",
               {{"x", make_tensor<int64_t>({2}, {big, -big})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{big, big, -big, -big}));
}

TEST(ImageResize, TfCropAndResizeExtrapolates) {
  // roi [0.5, 1.5] of a length-3 axis: positions 1, 2, 3; 3 is outside -> extrapolation value.
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[3] x) => (float[3] y) {
  roi = Constant <value = float[2] {0.5, 1.5}> ()
  sz = Constant <value = int64[1] {3}> ()
  y = Resize <mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = -7.0> (x, roi, , sz)
})",
               {{"x", make_tensor<float>({3}, {10, 20, 30})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{20, 30, -7}));
}

TEST(ImageResize, ScalesAndSizesTogetherIsAnError) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[4] y) {
  sc = Constant <value = float[1] {2}> ()
  sz = Constant <value = int64[1] {4}> ()
  y = Resize (x, , sc, sz)
})",
               {{"x", make_tensor<float>({2}, {1, 2})}});
  EXPECT_FALSE(r.is_ok());
}

TEST(ImageResize, ShapeRuleKeepsSymbolicDims) {
  auto m = test::parse(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[N,3,H,W] x) => (float[N,3,a,b] y) {
  sc = Constant <value = float[4] {1, 1, 2, 0.5}> ()
  y = Resize (x, , sc)
})");
  ASSERT_TRUE(m);
  passes::InferOptions io;
  io.use_declared = false;
  passes::ShapeInference si(*m, io);
  ASSERT_TRUE(si.run().is_ok());
  const ops::TypeInfo* f = si.facts(m->graph->outputs()[0]);
  ASSERT_TRUE(f && f->shape);
  EXPECT_EQ((*f->shape)[0].str(), "N");
  EXPECT_EQ((*f->shape)[2].str(), "2*H");
  EXPECT_EQ((*f->shape)[3].str(), "floor(W / 2)");
}

TEST(ImageUpsample, NearestOpset9) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 9]>
g (float[1,2] x, float[2] s) => (float[2,6] y) { y = Upsample (x, s) })",
               {{"x", make_tensor<float>({1, 2}, {1, 2})}, {"s", make_tensor<float>({2}, {2, 3})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

TEST(ImageGridSample, IdentityAffineGridReproducesTheInput) {
  // AffineGrid of the identity transform, then GridSample: every pixel samples itself.
  for (const char* align : {"0", "1"}) {
    std::string text = R"(<ir_version: 8, opset_import: ["" : 20]>
g (float[1,1,2,3] x, float[1,2,3] th) => (float[1,1,2,3] y) {
  sz = Constant <value = int64[4] {1, 1, 2, 3}> ()
  grid = AffineGrid <align_corners = @AL> (th, sz)
  y = GridSample <align_corners = @AL, mode = "linear"> (x, grid)
})";
    for (size_t p; (p = text.find("@AL")) != std::string::npos;) text.replace(p, 3, align);
    auto r = run(text, {{"x", make_tensor<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                        {"th", make_tensor<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0})}});
    auto y = vals<float>(r);
    ASSERT_EQ(y.size(), 6u);
    for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(y[i], static_cast<float>(i + 1), 1e-5) << align;
  }
}

TEST(ImageGridSample, PaddingModesOutsideTheImage) {
  // One 1x2 image [10, 20]; the grid point x = 3 (far right, outside), y = 0.
  const char* text = R"(<ir_version: 8, opset_import: ["" : 20]>
g (float[1,1,1,2] x, float[1,1,1,2] grid) => (float[1,1,1,1] y) { y = GridSample <padding_mode = "PAD", align_corners = 1> (x, grid) })";
  auto with = [&](const std::string& pad) {
    std::string t = text;
    t.replace(t.find("PAD"), 3, pad);
    return vals<float>(run(
        t, {{"x", make_tensor<float>({1, 1, 1, 2}, {10, 20})}, {"grid", make_tensor<float>({1, 1, 1, 2}, {3, 0})}}));
  };
  // align_corners: x = 3 maps to pixel 2; zeros reads nothing, border the last pixel, and
  // reflection mirrors 2 about 1 back to 0.
  EXPECT_EQ(with("zeros"), (std::vector<float>{0}));
  EXPECT_EQ(with("border"), (std::vector<float>{20}));
  EXPECT_EQ(with("reflection"), (std::vector<float>{10}));
}

}  // namespace
}  // namespace onnxtrim

namespace onnxtrim {
namespace {

// align_corners divides by the output's integer length minus one, floor(in * scale) - 1, not
// by the unfloored product (issue 12, F4; ONNX Runtime and the spec's formula agree).
TEST(ImageResize, AlignCornersUsesTheIntegerOutputLength) {
  std::vector<float> in(12);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  // [3, 4] by [1.5, 2] -> [4, 8]; output row 3 samples input row 3 * 2 / 3 = 2.
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 19]>
g (float[3,4] x) => (float[4,8] y) {
  sc = Constant <value = float[2] {1.5, 2}> ()
  y = Resize <mode = "nearest", nearest_mode = "floor", coordinate_transformation_mode = "align_corners"> (x, , sc)
})",
               {{"x", make_tensor<float>({3, 4}, in)}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{0, 0, 0, 1, 1, 2, 2, 3, 0, 0, 0, 1, 1, 2,  2,  3,  //
                                                4, 4, 4, 5, 5, 6, 6, 7, 8, 8, 8, 9, 9, 10, 10, 11}));
  // Linear, downscaled by 0.6: [1, 2, 3, 4] -> floor(2.4) = 2 samples at 0 and 3.
  auto lin = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,4] x) => (float[1,2] y) {
  sc = Constant <value = float[2] {1, 0.6}> ()
  y = Resize <mode = "linear", coordinate_transformation_mode = "align_corners"> (x, , sc)
})",
                 {{"x", make_tensor<float>({1, 4}, {1, 2, 3, 4})}});
  EXPECT_EQ(vals<float>(lin), (std::vector<float>{1, 4}));
  // A single output position samples position 0.
  auto one = run(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[3] x) => (float[1] y) {
  sc = Constant <value = float[1] {0.5}> ()
  y = Resize <mode = "linear", coordinate_transformation_mode = "align_corners"> (x, , sc)
})",
                 {{"x", make_tensor<float>({3}, {5, 6, 7})}});
  EXPECT_EQ(vals<float>(one), (std::vector<float>{5}));
}

}  // namespace
}  // namespace onnxtrim
