// Div: a / b with broadcasting; integer division truncates toward zero.
#include <limits>
#include <optional>

#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_div(KernelContext& ctx) {
  return binary(ctx, kAllNumeric, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) {
      if (b == 0) return T(0);  // undefined in the spec; never trap
      if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;  // wraps
      }
      return T(a / b);  // truncates toward zero
    } else {
      auto x = static_cast<compute_t<T>>(a);
      auto y = static_cast<compute_t<T>>(b);
      return T(x / y);
    }
  });
}

// ---- shape inference (with value propagation)
Status infer_div(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (!ir::dtype_is_integer(ctx.input(0).elem)) return Status::ok();
  // Truncating integer division, expressed as a floor division where bounds allow.
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    return int_div(a[0], a[1]);
  });
  return Status::ok();
}

// ---- local folds
// x / 1 -> x
bool fold_div_one(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 1.0, false); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Div, "", "Div", (std::vector<int>{1, 6, 7, 13, 14}), eval_div);
ONNXTRIM_REGISTER_ELEMENTWISE(Div, "", "Div");
ONNXTRIM_REGISTER_INFER(Div, "", "Div", infer_div);
ONNXTRIM_REGISTER_TYPES(Div, "", "Div", "T T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(DivFold0, "", "Div", "eliminate_identity_elements", fold_div_one);

}  // namespace onnxtrim::ops
