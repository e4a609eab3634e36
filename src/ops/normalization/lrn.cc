// LRN: local response normalisation across channels.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_lrn(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 1, "LRN needs an input", 3));
  const Tensor& x = ctx.input(0);
  const ir::Node& node = ctx.node();
  if (!node.has_attr("size")) return ctx.error("LRN requires size");
  int64_t size = node.attr_int("size", 1);
  if (size <= 0) return ctx.error("LRN size must be positive");
  double alpha = node.attr_float("alpha", 1e-4f), beta = node.attr_float("beta", 0.75f),
         bias = node.attr_float("bias", 1.f);
  int64_t N = x.dims()[0], C = x.dims()[1];
  int64_t sp = norm::spatial_size(x);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;  // floor below, ceil above
  std::vector<double> v = norm::to_doubles(x), out(v.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      int64_t c0 = std::max<int64_t>(0, c - lo), c1 = std::min<int64_t>(C - 1, c + hi);
      for (int64_t i = 0; i < sp; ++i) {
        double s = 0;
        for (int64_t k = c0; k <= c1; ++k) {
          double e = v[static_cast<size_t>((n * C + k) * sp + i)];
          s += e * e;
        }
        auto at = static_cast<size_t>((n * C + c) * sp + i);
        out[at] = v[at] / std::pow(bias + alpha / static_cast<double>(size) * s, beta);
      }
    }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), out));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LRN, "", "LRN", (std::vector<int>{1, 13}), eval_lrn);
ONNXTRIM_REGISTER_INFER(LRN, "", "LRN", infer_same);
ONNXTRIM_REGISTER_TYPES(LRN, "", "LRN", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
