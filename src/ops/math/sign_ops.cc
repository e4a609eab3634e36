// The ops of a number's sign: Abs, Neg, Relu, Sign. What they share: one input, an output of its
// type and shape, each element mapped by itself (math::unary); all are element-wise. Abs, Relu
// and Sign are idempotent, f(f(x)) -> f(x); Neg is an involution, Neg(Neg(x)) -> x (exact:
// negation flips the sign bit; integers wrap back). Integers wrap: Abs and Neg of the minimum
// value give it back. On signed integer tensors, Neg's values propagate (-x), and Abs's where
// bounds decide the sign (x when never negative, -x when never positive).
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

Status eval_neg(KernelContext& ctx) {
  return unary(ctx, kFloats | kSigned, [](auto v) {
    using T = decltype(v);
    if constexpr (is_int<T>) return wrap_sub(T(0), v);
    else return T(-static_cast<compute_t<T>>(v));
  });
}

Status eval_relu(KernelContext& ctx) {
  return unary(ctx, kFloats | kSigned, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return v;  // not reached: no bool Relu
    else if constexpr (is_int<T>) return v < 0 ? T(0) : v;
    else return static_cast<compute_t<T>>(v) < 0 ? T(0.0f) : v;
  });
}

Status eval_sign(KernelContext& ctx) {
  return unary(ctx, kAllNumeric, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) {
      return v;  // not reached: no bool Sign
    } else {
      auto c = static_cast<compute_t<T>>(v);
      if constexpr (!is_int<T>) {
        if (std::isnan(static_cast<double>(c))) return v;
      }
      return T(static_cast<compute_t<T>>(c > 0 ? 1 : (c < 0 ? -1 : 0)));
    }
  });
}

// ---- shape inference (with value propagation on signed integers)
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

Status infer_neg(InferContext& ctx) {
  propagate_same(ctx);
  if (!ir::dtype_is_signed(ctx.output(0).elem)) return Status::ok();
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    return Expr::constant(0) - a[0];
  });
  return Status::ok();
}

// ---- registration (versions from Changelog.md); local folds (eliminate_idempotent_ops):
// f(f(x)) -> f(x) (math::fold_idempotent), Neg(Neg(x)) -> x (math::fold_involution)
const Folds kSignIdempotent = {{"eliminate_idempotent_ops", fold_idempotent}};
const uint64_t kSignedFloatTypes = kFloatTypes | kSignedTypes;
const OpRegistration kSignOps[] = {
    elementwise_op("Abs", {1, 6, 13}, eval_abs, infer_abs, "T", kNumericTypes, kSignIdempotent),
    elementwise_op("Neg", {1, 6, 13}, eval_neg, infer_neg, "T", kSignedFloatTypes,
                   {{"eliminate_idempotent_ops", fold_involution}}),
    elementwise_op("Relu", {1, 6, 13, 14}, eval_relu, infer_same, "T", kSignedFloatTypes, kSignIdempotent),
    elementwise_op("Sign", {9, 13}, eval_sign, infer_same, "T", kNumericTypes, kSignIdempotent),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(SignOps, kSignOps);

}  // namespace onnxtrim::ops
