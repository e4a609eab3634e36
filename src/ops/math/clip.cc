// Clip: clamp to [min, max]: attributes before opset 11, optional inputs after.
#include <limits>
#include <optional>

#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_clip(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  double lo = -INFINITY, hi = INFINITY;
  bool has_lo = false, has_hi = false;
  if (ctx.opset() < 11) {
    lo = ctx.node().attr_float("min", -3.4028234663852886e38f);
    hi = ctx.node().attr_float("max", 3.4028234663852886e38f);
    has_lo = has_hi = true;
  } else {
    if (ctx.has_input(1) && ctx.input(1).numel() > 0) {
      lo = element_as_double(ctx.input(1), 0);
      has_lo = true;
    }
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
      hi = element_as_double(ctx.input(2), 0);
      has_hi = true;
    }
  }
  Tensor y(x.dtype(), x.dims());
  bool ok = dispatch(x.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.numel() ? y.mutable_data<T>() : nullptr;
    const T* px = x.data<T>();
    if constexpr (is_int<T>) {
      // Bounds compared as integers read from the bound tensors (exact for int64).
      std::optional<T> l, h;
      if (has_lo && ctx.opset() >= 11) l = ctx.input(1).data<T>()[0];
      if (has_hi && ctx.opset() >= 11) h = ctx.input(2).data<T>()[0];
      for (int64_t i = 0; i < x.numel(); ++i) {
        T v = px[i];
        if (l && v < *l) v = *l;
        if (h && v > *h) v = *h;
        py[i] = v;
      }
    } else {
      for (int64_t i = 0; i < x.numel(); ++i) {
        double v = static_cast<double>(static_cast<compute_t<T>>(px[i]));
        if (has_lo && v < lo) v = lo;
        if (has_hi && v > hi) v = hi;
        py[i] = T(static_cast<compute_t<T>>(v));
      }
    }
  });
  if (!ok) return ctx.error("Clip does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Clip, "", "Clip", (std::vector<int>{1, 6, 11, 12, 13}), eval_clip);
ONNXTRIM_REGISTER_ELEMENTWISE(Clip, "", "Clip");
ONNXTRIM_REGISTER_INFER(Clip, "", "Clip", infer_same);
ONNXTRIM_REGISTER_TYPES(Clip, "", "Clip", "T T T", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
