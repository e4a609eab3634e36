// Unit tests of the normalization family kernels: opset differences, training outputs, other
// dtypes, negative axes, broadcasting of scale/bias, errors.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::Half;
using ops::make_tensor;
using test::dims;
using test::run;
using test::vals;

TEST(NormBatchNorm, TrainingModeOutputsRunningStatistics) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 15]> g (float[2,1,1] x, float[1] s, float[1] b, float[1] m, float[1] v) => (float[2,1,1] y, float[1] rm, float[1] rv) {
                   y, rm, rv = BatchNormalization<training_mode = 1, momentum = 0.5, epsilon = 0.0>(x, s, b, m, v) })",
      {{"x", make_tensor<float>({2, 1, 1}, {1, 3})},
       {"s", make_tensor<float>({1}, {1})},
       {"b", make_tensor<float>({1}, {0})},
       {"m", make_tensor<float>({1}, {0})},
       {"v", make_tensor<float>({1}, {3})}});
  // batch mean 2, batch (population) variance 1
  EXPECT_EQ(vals<float>(r), (std::vector<float>{-1, 1}));
  EXPECT_EQ(vals<float>(r, 1), (std::vector<float>{1}));  // 0 * 0.5 + 2 * 0.5
  EXPECT_EQ(vals<float>(r, 2), (std::vector<float>{2}));  // 3 * 0.5 + 1 * 0.5
}

TEST(NormBatchNorm, InferenceWithRunningStatisticsAndMixedParamTypes) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 15]> g (float16[1,2,1] x, float[2] s, float[2] b, double[2] m, double[2] v) => (float16[1,2,1] y) {
                   y = BatchNormalization<epsilon = 0.0>(x, s, b, m, v) })",
      {{"x", make_tensor<Half>({1, 2, 1}, {Half(4.f), Half(9.f)})},
       {"s", make_tensor<float>({2}, {1, 2})},
       {"b", make_tensor<float>({2}, {0, 1})},
       {"m", make_tensor<double>({2}, {0, 1})},
       {"v", make_tensor<double>({2}, {4, 16})}});
  std::vector<Half> y = vals<Half>(r);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(static_cast<float>(y[0]), 2.f);  // 4 / 2
  EXPECT_EQ(static_cast<float>(y[1]), 5.f);  // (9 - 1) / 4 * 2 + 1
}

TEST(NormBatchNorm, SpatialZeroBeforeOpset9) {
  auto r = run(
      R"(<ir_version: 3, opset_import: ["" : 7]> g (float[1,1,2] x, float[1,2] s, float[1,2] b, float[1,2] m, float[1,2] v) => (float[1,1,2] y) {
                   y = BatchNormalization<spatial = 0, epsilon = 0.0>(x, s, b, m, v) })",
      {{"x", make_tensor<float>({1, 1, 2}, {4, 9})},
       {"s", make_tensor<float>({1, 2}, {1, 1})},
       {"b", make_tensor<float>({1, 2}, {0, 0})},
       {"m", make_tensor<float>({1, 2}, {0, 1})},
       {"v", make_tensor<float>({1, 2}, {4, 16})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{2, 2}));
}

TEST(NormBatchNorm, WrongParameterSizeIsAnError) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 15]> g (float[1,2,1] x, float[3] s, float[2] b, float[2] m, float[2] v) => (float[1,2,1] y) {
                   y = BatchNormalization(x, s, b, m, v) })",
      {{"x", ir::Tensor(ir::DataType::kFloat, {1, 2, 1})},
       {"s", ir::Tensor(ir::DataType::kFloat, {3})},
       {"b", ir::Tensor(ir::DataType::kFloat, {2})},
       {"m", ir::Tensor(ir::DataType::kFloat, {2})},
       {"v", ir::Tensor(ir::DataType::kFloat, {2})}});
  EXPECT_FALSE(r.is_ok());
}

TEST(NormLayerNorm, NegativeAxisScaleBroadcastAndStatistics) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (float[1,2,2] x, float[2] s) => (float[1,2,2] y, float[1,1,1] mean, float[1,1,1] inv) {
                   y, mean, inv = LayerNormalization<axis = -2, epsilon = 0.0>(x, s) })",
      {{"x", make_tensor<float>({1, 2, 2}, {1, 3, 1, 3})}, {"s", make_tensor<float>({2}, {1, 2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{-1, 2, -1, 2}));
  EXPECT_EQ(dims(r, 1), (ops::Dims{1, 1, 1}));
  EXPECT_EQ(vals<float>(r, 1), (std::vector<float>{2}));
  EXPECT_EQ(vals<float>(r, 2), (std::vector<float>{1}));
}

TEST(NormLayerNorm, AxisOutOfRangeIsAnError) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (float[2] x, float[2] s) => (float[2] y) { y = LayerNormalization<axis = 1>(x, s) })",
      {{"x", make_tensor<float>({2}, {1, 2})}, {"s", make_tensor<float>({2}, {1, 1})}});
  EXPECT_FALSE(r.is_ok());
}

TEST(NormGroupNorm, ScaleIsPerGroupAtOpset18AndPerChannelAtOpset21) {
  std::map<std::string, ir::Tensor> f18{{"x", make_tensor<float>({1, 2, 2}, {0, 2, 0, 2})},
                                        {"s", make_tensor<float>({1}, {2})},
                                        {"b", make_tensor<float>({1}, {1})}};
  auto r18 =
      run(R"(<ir_version: 8, opset_import: ["" : 18]> g (float[1,2,2] x, float[1] s, float[1] b) => (float[1,2,2] y) {
                     y = GroupNormalization<num_groups = 1, epsilon = 0.0>(x, s, b) })",
          f18);
  EXPECT_EQ(vals<float>(r18), (std::vector<float>{-1, 3, -1, 3}));
  std::map<std::string, ir::Tensor> f21{{"x", make_tensor<float>({1, 2, 2}, {0, 2, 0, 2})},
                                        {"s", make_tensor<float>({2}, {1, 2})},
                                        {"b", make_tensor<float>({2}, {0, 1})}};
  auto r21 =
      run(R"(<ir_version: 10, opset_import: ["" : 21]> g (float[1,2,2] x, float[2] s, float[2] b) => (float[1,2,2] y) {
                     y = GroupNormalization<num_groups = 1, epsilon = 0.0>(x, s, b) })",
          f21);
  EXPECT_EQ(vals<float>(r21), (std::vector<float>{-1, 1, -1, 3}));
  auto bad =
      run(R"(<ir_version: 10, opset_import: ["" : 21]> g (float[1,2,2] x, float[1] s, float[1] b) => (float[1,2,2] y) {
                     y = GroupNormalization<num_groups = 1>(x, s, b) })",
          f18);
  EXPECT_FALSE(bad.is_ok());
}

TEST(NormRms, ScalesByInverseRootMeanSquare) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 23]> g (double[1,2] x, double[2] s) => (double[1,2] y) {
                   y = RMSNormalization<epsilon = 0.0, stash_type = 11>(x, s) })",
               {{"x", make_tensor<double>({1, 2}, {2, -2})}, {"s", make_tensor<double>({2}, {3, 4})}});
  EXPECT_EQ(vals<double>(r), (std::vector<double>{3, -4}));
}

TEST(NormLp, L1NegativeAxisAndZeroVector) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,2] x) => (float[2,2] y) { y = LpNormalization<axis = -2, p = 1>(x) })",
      {{"x", make_tensor<float>({2, 2}, {1, 0, -3, 0})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{0.25f, 0, -0.75f, 0}));
  auto bad = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,2] x) => (float[2,2] y) { y = LpNormalization<p = 3>(x) })",
      {{"x", make_tensor<float>({2, 2}, {1, 0, -3, 0})}});
  EXPECT_FALSE(bad.is_ok());
}

TEST(NormMvn, DefaultAndCustomAxes) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,2,1,2] x) => (float[1,2,1,2] y) { y = MeanVarianceNormalization(x) })",
      {{"x", make_tensor<float>({1, 2, 1, 2}, {1, 3, 10, 10})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{-1, 1, 0, 0}));
  auto c = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,2] x) => (float[2,2] y) { y = MeanVarianceNormalization<axes = [-1]>(x) })",
      {{"x", make_tensor<float>({2, 2}, {5, 7, -1, 1})}});
  EXPECT_EQ(vals<float>(c), (std::vector<float>{-1, 1, -1, 1}));
}

TEST(NormLrn, AcrossChannels) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,2,1] x) => (float[1,2,1] y) { y = LRN<size = 1, alpha = 1.0, beta = 1.0, bias = 1.0>(x) })",
      {{"x", make_tensor<float>({1, 2, 1}, {1, 2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{0.5f, 0.4f}));
  // size 2: the window is [c, c + 1]; alpha / size = 1. Channel 0: 1 / (1 + 1 + 4); channel 1: 2 / (1 + 4).
  auto r2 = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (double[1,2,1] x) => (double[1,2,1] y) { y = LRN<size = 2, alpha = 2.0, beta = 1.0, bias = 1.0>(x) })",
      {{"x", make_tensor<double>({1, 2, 1}, {1, 2})}});
  EXPECT_EQ(vals<double>(r2), (std::vector<double>{1.0 / 6.0, 0.4}));
}

TEST(NormInstanceNorm, Float16AndEmptyBatch) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 6]> g (float16[1,1,2] x, float16[1] s, float16[1] b) => (float16[1,1,2] y) {
                   y = InstanceNormalization<epsilon = 0.0>(x, s, b) })",
      {{"x", make_tensor<Half>({1, 1, 2}, {Half(1.f), Half(3.f)})},
       {"s", make_tensor<Half>({1}, {Half(2.f)})},
       {"b", make_tensor<Half>({1}, {Half(0.5f)})}});
  std::vector<Half> y = vals<Half>(r);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(static_cast<float>(y[0]), -1.5f);
  EXPECT_EQ(static_cast<float>(y[1]), 2.5f);
  auto e =
      run(R"(<ir_version: 8, opset_import: ["" : 6]> g (float[0,1,2] x, float[1] s, float[1] b) => (float[0,1,2] y) {
                   y = InstanceNormalization(x, s, b) })",
          {{"x", ir::Tensor(ir::DataType::kFloat, {0, 1, 2})},
           {"s", make_tensor<float>({1}, {1})},
           {"b", make_tensor<float>({1}, {0})}});
  EXPECT_EQ(dims(e), (ops::Dims{0, 1, 2}));
}

}  // namespace
}  // namespace onnxtrim

namespace onnxtrim {
namespace {

TEST(NormBatchNorm, IsTestBeforeOpset7SelectsTheStatistics) {
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({2, 1, 1}, {1, 3})},
                                          {"s", make_tensor<float>({1}, {1})},
                                          {"b", make_tensor<float>({1}, {0})},
                                          {"m", make_tensor<float>({1}, {0})},
                                          {"v", make_tensor<float>({1}, {4})}};
  auto test = run(
      R"(<ir_version: 3, opset_import: ["" : 6]> g (float[2,1,1] x, float[1] s, float[1] b, float[1] m, float[1] v) => (float[2,1,1] y) {
                      y = BatchNormalization<is_test = 1, epsilon = 0.0>(x, s, b, m, v) })",
      feeds);
  EXPECT_EQ(vals<float>(test), (std::vector<float>{0.5f, 1.5f}));  // running statistics
  auto train = run(
      R"(<ir_version: 3, opset_import: ["" : 6]> g (float[2,1,1] x, float[1] s, float[1] b, float[1] m, float[1] v) => (float[2,1,1] y) {
                       y = BatchNormalization<epsilon = 0.0>(x, s, b, m, v) })",
      feeds);
  EXPECT_EQ(vals<float>(train), (std::vector<float>{-1, 1}));  // batch statistics
}

}  // namespace
}  // namespace onnxtrim
