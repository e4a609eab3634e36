// SwiGLU (28): Y = A * sigmoid(alpha * A) * B, for A and B of one shape (no broadcasting).
#include <cmath>

#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_swi_glu(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("SwiGLU needs A and B");
  if (ctx.input(0).dims() != ctx.input(1).dims()) return ctx.error("SwiGLU inputs must have the same shape");
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return binary(ctx, kFloats, [&](auto a, auto b) {
    using T = decltype(a);
    double x = static_cast<double>(static_cast<compute_t<T>>(a));
    return x / (1.0 + std::exp(-alpha * x)) * static_cast<double>(static_cast<compute_t<T>>(b));
  });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SwiGLU, "", "SwiGLU", (std::vector<int>{28}), eval_swi_glu);
ONNXTRIM_REGISTER_INFER(SwiGLU, "", "SwiGLU", infer_same);
ONNXTRIM_REGISTER_TYPES(SwiGLU, "", "SwiGLU", "T T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
