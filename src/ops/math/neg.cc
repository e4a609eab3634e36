// Neg: -x (integers wrap).
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_neg(KernelContext& ctx) {
  return unary(ctx, kFloats | kSigned, [](auto v) {
    using T = decltype(v);
    if constexpr (is_int<T>) return wrap_sub(T(0), v);
    else return T(-static_cast<compute_t<T>>(v));
  });
}

// ---- local folds
// Neg(Neg(x)) -> x (exact: negation only flips the sign bit; integers wrap back)
bool fold_neg_neg(ir::Node& n, FoldContext& fc) { return math::fold_involution(n, fc); }

// ---- shape inference (with value propagation: -x)
Status infer_neg(InferContext& ctx) {
  propagate_same(ctx);
  if (!ir::dtype_is_signed(ctx.output(0).elem)) return Status::ok();
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    return Expr::constant(0) - a[0];
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Neg, "", "Neg", (std::vector<int>{1, 6, 13}), eval_neg);
ONNXTRIM_REGISTER_ELEMENTWISE(Neg, "", "Neg");
ONNXTRIM_REGISTER_INFER(Neg, "", "Neg", infer_neg);
ONNXTRIM_REGISTER_TYPES(Neg, "", "Neg", "T", {{"T", kFloatTypes | kSignedTypes}});

ONNXTRIM_REGISTER_FOLD(NegFold0, "", "Neg", "eliminate_idempotent_ops", fold_neg_neg);

}  // namespace onnxtrim::ops
