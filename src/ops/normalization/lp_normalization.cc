// LpNormalization: x divided by its L1 or L2 norm along an axis.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_lp_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 1, "LpNormalization needs an input", 0));
  const Tensor& x = ctx.input(0);
  auto axis = normalize_axis(ctx.node().attr_int("axis", -1), x.rank());
  if (!axis) return ctx.error("LpNormalization axis out of range");
  int64_t p = ctx.node().attr_int("p", 2);
  if (p != 1 && p != 2) return ctx.error("LpNormalization p must be 1 or 2");
  int64_t len = x.dims()[static_cast<size_t>(*axis)];
  int64_t inner = 1;
  for (int64_t d = *axis + 1; d < x.rank(); ++d) inner *= x.dims()[static_cast<size_t>(d)];
  int64_t outer = len * inner != 0 ? x.numel() / (len * inner) : 0;
  std::vector<double> v = norm::to_doubles(x);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      double* q = v.data() + o * len * inner + in;
      double s = 0;
      for (int64_t i = 0; i < len; ++i) s += p == 1 ? std::fabs(q[i * inner]) : q[i * inner] * q[i * inner];
      double nrm = p == 1 ? s : std::sqrt(s);
      for (int64_t i = 0; i < len; ++i) q[i * inner] = nrm == 0 ? 0.0 : q[i * inner] / nrm;
    }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LpNormalization, "", "LpNormalization", (std::vector<int>{1, 22}), eval_lp_normalization);
ONNXTRIM_REGISTER_INFER(LpNormalization, "", "LpNormalization", infer_same);
ONNXTRIM_REGISTER_TYPES(LpNormalization, "", "LpNormalization", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
