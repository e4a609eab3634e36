// Momentum (ai.onnx.preview.training): one SGD-with-momentum step per optimized tensor.
//   g = norm_coefficient * X + G;  b = T > 0 ? beta : 1;  V' = alpha V + b g;
//   standard: X' = X - R V';  nesterov: X' = X - R (g + alpha V')
#include "ops/training/optimizer_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_momentum(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!n.attr("alpha") || !n.attr("beta") || !n.attr("mode") || !n.attr("norm_coefficient"))
    return ctx.error("Momentum needs the attributes alpha, beta, mode and norm_coefficient");
  double alpha = n.attr_float("alpha", 0.0f);
  double beta = n.attr_float("beta", 0.0f);
  double norm = n.attr_float("norm_coefficient", 0.0f);
  std::string mode = n.attr_string("mode", "");
  if (mode != "standard" && mode != "nesterov")
    return ctx.error("Momentum mode must be standard or nesterov, not '" + mode + "'");
  bool nesterov = mode == "nesterov";
  return training::run_optimizer(ctx, 3, [&](double R, int64_t T, const double* in, double* out) {
    double g = norm * in[0] + in[1];
    double b = T > 0 ? beta : 1.0;
    double v = alpha * in[2] + b * g;
    out[0] = nesterov ? in[0] - R * (g + alpha * v) : in[0] - R * v;
    out[1] = v;
  });
}

// ---- shape inference
Status infer_momentum(InferContext& ctx) { return training::infer_optimizer(ctx, 3); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Momentum, "ai.onnx.preview.training", "Momentum", (std::vector<int>{1}), eval_momentum);
ONNXTRIM_REGISTER_INFER(Momentum, "ai.onnx.preview.training", "Momentum", infer_momentum);

}  // namespace onnxtrim::ops
