// Mul: a * b with broadcasting; integers wrap.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_mul(KernelContext& ctx) {
  return binary(ctx, kAllNumeric, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) {
      return wrap_mul(a, b);
    } else {
      auto x = static_cast<compute_t<T>>(a);
      auto y = static_cast<compute_t<T>>(b);
      return T(x * y);
    }
  });
}

// ---- shape inference (with value propagation)
Status infer_mul(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (!ir::dtype_is_integer(ctx.input(0).elem)) return Status::ok();
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    return a[0] * a[1];
  });
  return Status::ok();
}

// ---- local folds
// x * 1 -> x, 1 * x -> x
bool fold_mul_one(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 1.0, true); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Mul, "", "Mul", (std::vector<int>{1, 6, 7, 13, 14}), eval_mul);
ONNXTRIM_REGISTER_ELEMENTWISE(Mul, "", "Mul");
ONNXTRIM_REGISTER_INFER(Mul, "", "Mul", infer_mul);
ONNXTRIM_REGISTER_TYPES(Mul, "", "Mul", "T T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(MulFold0, "", "Mul", "eliminate_identity_elements", fold_mul_one);

}  // namespace onnxtrim::ops
