// The training family (src/ops/training/): the optimizers Adagrad, Momentum (standard and
// Nesterov) and Adam, one step each, worked out by hand; a state of the wrong shape is an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;
using test::run;
using test::vals;

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

}  // namespace
}  // namespace onnxtrim
