// Abs: |x| (integers wrap for the minimum value).
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_abs(KernelContext& ctx) {
  return unary(ctx, kAllNumeric, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_unsigned_v<T>) return v;
    else if constexpr (is_int<T>) return v < 0 ? wrap_sub(T(0), v) : v;
    else return T(std::fabs(static_cast<compute_t<T>>(v)));
  });
}

// ---- local folds
// Abs(Abs(x)) -> Abs(x)
bool fold_abs_abs(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

// ---- shape inference (with value propagation: |x|: x when never negative, -x when never positive)
Status infer_abs(InferContext& ctx) {
  propagate_same(ctx);
  if (!ir::dtype_is_signed(ctx.output(0).elem)) return Status::ok();
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    symbolic::Bounds b = symbolic::bounds(a[0]);
    if (b.lo && *b.lo >= 0) return a[0];
    if (b.hi && *b.hi <= 0) return Expr::constant(0) - a[0];
    return std::nullopt;
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Abs, "", "Abs", (std::vector<int>{1, 6, 13}), eval_abs);
ONNXTRIM_REGISTER_ELEMENTWISE(Abs, "", "Abs");
ONNXTRIM_REGISTER_INFER(Abs, "", "Abs", infer_abs);
ONNXTRIM_REGISTER_TYPES(Abs, "", "Abs", "T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(AbsFold0, "", "Abs", "eliminate_idempotent_ops", fold_abs_abs);

}  // namespace onnxtrim::ops
