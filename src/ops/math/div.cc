// Div: a / b with broadcasting; integer division truncates toward zero.
#include <limits>
#include <optional>

#include "ops/math/elementwise.h"

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
  const auto& a = ctx.input_values(0);
  const auto& b = ctx.input_values(1);
  if (!a || !b || !ir::dtype_is_integer(ctx.input(0).elem)) return Status::ok();
  if (a->size() != b->size() && a->size() != 1 && b->size() != 1) return Status::ok();
  size_t n = std::max(a->size(), b->size());
  std::vector<Expr> out;
  for (size_t i = 0; i < n; ++i) {
    const Expr& x = (*a)[a->size() == 1 ? 0 : i];
    const Expr& y = (*b)[b->size() == 1 ? 0 : i];
    auto xc = x.constant_value(), yc = y.constant_value();
    if (xc && yc && *yc != 0) out.push_back(Expr::constant(*xc / *yc));
    else if (yc && *yc > 0 && !xc) out.push_back(Expr::floordiv(x, y));  // dims are non-negative
    else return Status::ok();
  }
  ctx.output(0).values = std::move(out);
  return Status::ok();
}

// ---- local folds
// x / 1 -> x
bool fold_div_one(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 1.0, false); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Div, "", "Div", (std::vector<int>{1, 6, 7, 13, 14}), eval_div);
ONNXTRIM_REGISTER_INFER(Div, "", "Div", infer_div);
ONNXTRIM_REGISTER_TYPES(Div, "", "Div", "T T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(DivFold0, "", "Div", "eliminate_identity_elements", fold_div_one);

}  // namespace onnxtrim::ops
