// The object-detection family (src/ops/object_detection/): NonMaxSuppression, RoiAlign; exact
// values worked out by hand on tiny inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;
using test::expect_near;
using test::run;
using test::vals;

TEST(ObjectDetectionOps, NonMaxSuppressionKeepsTheBestOfOverlaps) {
  // Boxes 0 and 1 overlap (IoU 0.81 > 0.5): the higher-scored 1 wins; box 2 is apart.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (float[1,3,4] b, float[1,1,3] s, int64[1] m, float[1] iou) => (int64[2,3] y) { y = NonMaxSuppression(b, s, m, iou) })",
               {{"b", make_tensor<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6})},
                {"s", make_tensor<float>({1, 1, 3}, {0.5f, 0.9f, 0.1f})},
                {"m", make_tensor<int64_t>({1}, {10})},
                {"iou", make_tensor<float>({1}, {0.5f})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));
}

TEST(ObjectDetectionOps, RoiAlignAverageOfAConstantMap) {
  // Any RoI over a constant map averages to that constant.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 16]>
g (float[1,1,4,4] x, float[1,4] rois, int64[1] bi) => (float[1,1,2,2] y) { y = RoiAlign<output_height = 2, output_width = 2, sampling_ratio = 2>(x, rois, bi) })",
               {{"x", make_tensor<float>({1, 1, 4, 4}, std::vector<float>(16, 3.0f))},
                {"rois", make_tensor<float>({1, 4}, {0.5f, 0.5f, 3, 3})},
                {"bi", make_tensor<int64_t>({1}, {0})}});
  expect_near(vals<float>(r), {3, 3, 3, 3});
}

}  // namespace
}  // namespace onnxtrim
