// MeanVarianceNormalization: (x - mean) / (std + 1e-9) with statistics over `axes`.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_mean_variance_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 1, "MeanVarianceNormalization needs an input", 0));
  const Tensor& x = ctx.input(0);
  Dims axes = ctx.node().attr_ints("axes", {0, 2, 3});
  Dims kd = x.dims();
  for (int64_t a : axes) {
    auto n = normalize_axis(a, x.rank());
    if (!n) return ctx.error("MeanVarianceNormalization axis out of range");
    kd[static_cast<size_t>(*n)] = 1;
  }
  int64_t groups = numel_of(kd), n = x.numel();
  if (n == 0) {
    ctx.set_output(0, x);
    return Status::ok();
  }
  double cnt = static_cast<double>(n) / static_cast<double>(groups);
  std::vector<double> v = norm::to_doubles(x), sum(static_cast<size_t>(groups)), sq(static_cast<size_t>(groups));
  {
    BroadcastIndex it(kd, x.dims());
    for (int64_t i = 0; i < n; ++i, it.next()) sum[static_cast<size_t>(it.offset())] += v[static_cast<size_t>(i)];
  }
  for (auto& s : sum) s /= cnt;
  {
    BroadcastIndex it(kd, x.dims());
    for (int64_t i = 0; i < n; ++i, it.next()) {
      double d = v[static_cast<size_t>(i)] - sum[static_cast<size_t>(it.offset())];
      sq[static_cast<size_t>(it.offset())] += d * d;
    }
  }
  BroadcastIndex it(kd, x.dims());
  for (int64_t i = 0; i < n; ++i, it.next()) {
    auto g = static_cast<size_t>(it.offset());
    v[static_cast<size_t>(i)] = (v[static_cast<size_t>(i)] - sum[g]) / (std::sqrt(sq[g] / cnt) + 1e-9);
  }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(MeanVarianceNormalization, "", "MeanVarianceNormalization", (std::vector<int>{9, 13}),
                     eval_mean_variance_normalization);
ONNXTRIM_REGISTER_INFER(MeanVarianceNormalization, "", "MeanVarianceNormalization", infer_same);
ONNXTRIM_REGISTER_TYPES(MeanVarianceNormalization, "", "MeanVarianceNormalization", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
