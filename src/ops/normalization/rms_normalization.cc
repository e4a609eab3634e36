// RMSNormalization: y = x / sqrt(mean(x^2 over [axis, rank)) + eps) * scale.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_rms_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 2, "RMSNormalization needs inputs X and scale", 0));
  const Tensor& x = ctx.input(0);
  norm::TrailingAxes t;
  OT_RETURN_IF_ERROR(norm::trailing_axes(ctx, x, &t));
  bool low = t.stash != DataType::kDouble;
  std::vector<double> scale;
  if (!norm::broadcast_param(ctx.input(1), t.norm_dims, &scale))
    return ctx.error("RMSNormalization scale does not broadcast to X.shape[axis:]");
  std::vector<double> v = norm::to_doubles(x);
  for (int64_t o = 0; o < t.outer; ++o) {
    double* p = v.data() + o * t.inner;
    double q = 0;
    for (int64_t i = 0; i < t.inner; ++i) q += p[i] * p[i];
    double inv = 1.0 / std::sqrt(q / static_cast<double>(t.inner) + t.eps);
    for (int64_t i = 0; i < t.inner; ++i) {
      double nrm = p[i] * inv;
      if (low) nrm = static_cast<float>(nrm);
      p[i] = nrm * scale[static_cast<size_t>(i)];
    }
  }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(RMSNormalization, "", "RMSNormalization", (std::vector<int>{23}), eval_rms_normalization);
ONNXTRIM_REGISTER_INFER(RMSNormalization, "", "RMSNormalization", infer_same);
ONNXTRIM_REGISTER_TYPES(RMSNormalization, "", "RMSNormalization", "T V", {{"T", kFloatTypes}, {"V", kFloatTypes}});

}  // namespace onnxtrim::ops
