// Adagrad (ai.onnx.preview.training): one ADAGRAD step per optimized tensor.
//   r = R / (1 + T * decay_factor);  g = norm_coefficient * X + G;  H' = H + g * g;
//   X' = X - r * g / (sqrt(H') + epsilon)
#include <cmath>

#include "ops/training/optimizer_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_adagrad(KernelContext& ctx) {
  double decay = ctx.node().attr_float("decay_factor", 0.0f);
  double eps = ctx.node().attr_float("epsilon", 0.0f);
  double norm = ctx.node().attr_float("norm_coefficient", 0.0f);
  return training::run_optimizer(ctx, 3, [&](double R, int64_t T, const double* in, double* out) {
    double r = R / (1.0 + static_cast<double>(T) * decay);
    double g = norm * in[0] + in[1];
    double h = in[2] + g * g;
    out[0] = in[0] - r * g / (std::sqrt(h) + eps);
    out[1] = h;
  });
}

// ---- shape inference
Status infer_adagrad(InferContext& ctx) { return training::infer_optimizer(ctx, 3); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Adagrad, "ai.onnx.preview.training", "Adagrad", (std::vector<int>{1}), eval_adagrad);
ONNXTRIM_REGISTER_INFER(Adagrad, "ai.onnx.preview.training", "Adagrad", infer_adagrad);

}  // namespace onnxtrim::ops
