// Mod: remainder; fmod=0 takes the divisor's sign (integers), fmod=1 the dividend's.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_mod(KernelContext& ctx) {
  bool fmod = ctx.node().attr_int("fmod", 0) != 0;
  if (!fmod && ctx.has_input(0) && ir::dtype_is_float(ctx.input(0).dtype()))
    return ctx.error("Mod on floating-point inputs requires fmod = 1");
  return binary(ctx, kAllNumeric, [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
      }
      T r = static_cast<T>(a % b);
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      return T(static_cast<compute_t<T>>(std::fmod(static_cast<double>(static_cast<compute_t<T>>(a)),
                                                   static_cast<double>(static_cast<compute_t<T>>(b)))));
    }
  });
}

// ---- shape inference (with value propagation on integers: floor mod, or fmod's truncated
// one, when bounds make them agree with the symbolic mod)
Status infer_mod(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext& c) -> std::optional<Expr> {
    return int_mod(a[0], a[1], c.node().attr_int("fmod", 0) != 0);
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Mod, "", "Mod", (std::vector<int>{10, 13}), eval_mod);
ONNXTRIM_REGISTER_ELEMENTWISE(Mod, "", "Mod");
ONNXTRIM_REGISTER_INFER(Mod, "", "Mod", infer_mod);
ONNXTRIM_REGISTER_TYPES(Mod, "", "Mod", "T T", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
