// InstanceNormalization: per (n, c) plane, y = scale * (x - mean) / sqrt(var + eps) + B.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_instance_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 3, "InstanceNormalization needs inputs input, scale and B", 3));
  const Tensor& x = ctx.input(0);
  int64_t N = x.dims()[0], C = x.dims()[1];
  int64_t sp = norm::spatial_size(x);
  std::vector<double> scale = norm::to_doubles(ctx.input(1)), bias = norm::to_doubles(ctx.input(2));
  if (static_cast<int64_t>(scale.size()) != C || static_cast<int64_t>(bias.size()) != C)
    return ctx.error("InstanceNormalization scale and B must have C elements");
  double eps = ctx.node().attr_float("epsilon", 1e-5f);
  std::vector<double> v = norm::to_doubles(x);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      double* p = v.data() + (n * C + c) * sp;
      double s = 0;
      for (int64_t i = 0; i < sp; ++i) s += p[i];
      double m = s / static_cast<double>(sp);
      double q = 0;
      for (int64_t i = 0; i < sp; ++i) q += (p[i] - m) * (p[i] - m);
      double var = q / static_cast<double>(sp);
      double a = scale[static_cast<size_t>(c)] / std::sqrt(var + eps);
      for (int64_t i = 0; i < sp; ++i) p[i] = (p[i] - m) * a + bias[static_cast<size_t>(c)];
    }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(InstanceNormalization, "", "InstanceNormalization", (std::vector<int>{1, 6, 22}),
                     eval_instance_normalization);
ONNXTRIM_REGISTER_INFER(InstanceNormalization, "", "InstanceNormalization", infer_same);
ONNXTRIM_REGISTER_TYPES(InstanceNormalization, "", "InstanceNormalization", "T T T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
