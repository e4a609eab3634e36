// Adam (ai.onnx.preview.training): one Adam step per optimized tensor.
//   g = norm_coefficient * X + G;  V' = alpha V + (1 - alpha) g;  H' = beta H + (1 - beta) g^2;
//   R' = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R;
//   X' = (1 - norm_coefficient_post) (X - R' V' / (sqrt(H') + epsilon))
#include <cmath>

#include "ops/training/optimizer_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_adam(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 0.9f);
  double beta = ctx.node().attr_float("beta", 0.999f);
  double eps = ctx.node().attr_float("epsilon", 0.0f);
  double norm = ctx.node().attr_float("norm_coefficient", 0.0f);
  double post = ctx.node().attr_float("norm_coefficient_post", 0.0f);
  return training::run_optimizer(ctx, 4, [&](double R, int64_t T, const double* in, double* out) {
    double g = norm * in[0] + in[1];
    double v = alpha * in[2] + (1.0 - alpha) * g;
    double h = beta * in[3] + (1.0 - beta) * g * g;
    double t = static_cast<double>(T);
    double r = T > 0 ? R * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t)) : R;
    double x = in[0] - r * v / (std::sqrt(h) + eps);
    out[0] = (1.0 - post) * x;
    out[1] = v;
    out[2] = h;
  });
}

// ---- shape inference
Status infer_adam(InferContext& ctx) { return training::infer_optimizer(ctx, 4); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Adam, "ai.onnx.preview.training", "Adam", (std::vector<int>{1}), eval_adam);
ONNXTRIM_REGISTER_INFER(Adam, "ai.onnx.preview.training", "Adam", infer_adam);

}  // namespace onnxtrim::ops
