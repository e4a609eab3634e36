// The four operations: Add, Sub, Mul, Div. What they share: two inputs of one numeric type,
// broadcast together, an output of that type, element-wise; integers computed in two's
// complement (wrapping instead of overflowing), floats in their compute type (float for
// float16/bfloat16); on integer tensors, the shape rule propagates the values symbolically; and
// an identity element that folds away (x + 0, x - 0, x * 1, x / 1 are x; 0 + x and 1 * x too).
// Div's integer division truncates toward zero, and is 0 for a zero divisor (undefined in the
// spec: never trap); its values propagate where bounds make truncation a floor division.
#include <functional>
#include <limits>
#include <optional>

#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate: Int on integers, Float on the compute type's values
template <typename Float, typename Int>
Status eval_arithmetic(KernelContext& ctx) {
  return binary(ctx, kAllNumeric, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) return Int{}(a, b);
    else return T(Float{}(static_cast<compute_t<T>>(a), static_cast<compute_t<T>>(b)));
  });
}

// The integer forms of Add, Sub and Mul: two's complement, wrapping around.
using WrapAdd = decltype([](auto a, auto b) { return wrap_add(a, b); });
using WrapSub = decltype([](auto a, auto b) { return wrap_sub(a, b); });
using WrapMul = decltype([](auto a, auto b) { return wrap_mul(a, b); });
struct TruncDiv {
  template <typename T>
  T operator()(T a, T b) const {
    if (b == 0) return T(0);  // undefined in the spec; never trap
    if constexpr (std::is_signed_v<T>) {
      if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;  // wraps
    }
    return T(a / b);  // truncates toward zero
  }
};

// ---- shape inference (with value propagation on integers: Values(a, b))
template <std::optional<Expr> (*Values)(const Expr&, const Expr&)>
Status infer_arithmetic(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (!ir::dtype_is_integer(ctx.input(0).elem)) return Status::ok();
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    return Values(a[0], a[1]);
  });
  return Status::ok();
}

std::optional<Expr> add_values(const Expr& a, const Expr& b) { return a + b; }
std::optional<Expr> sub_values(const Expr& a, const Expr& b) { return a - b; }
std::optional<Expr> mul_values(const Expr& a, const Expr& b) { return a * b; }

// ---- registration (versions from Changelog.md); local folds: the identity element
// (math::fold_identity_element; commutative ops on either side)
const std::vector<int> kArithmeticVersions = {1, 6, 7, 13, 14};
const char* const kArithmeticFoldPass = "eliminate_identity_elements";
const OpRegistration kArithmeticOps[] = {
    elementwise_op("Add", kArithmeticVersions, eval_arithmetic<std::plus<>, WrapAdd>, infer_arithmetic<add_values>,
                   "T T", kNumericTypes, {{kArithmeticFoldPass, fold_identity<0, true>}}),
    elementwise_op("Sub", kArithmeticVersions, eval_arithmetic<std::minus<>, WrapSub>, infer_arithmetic<sub_values>,
                   "T T", kNumericTypes, {{kArithmeticFoldPass, fold_identity<0, false>}}),
    elementwise_op("Mul", kArithmeticVersions, eval_arithmetic<std::multiplies<>, WrapMul>,
                   infer_arithmetic<mul_values>, "T T", kNumericTypes, {{kArithmeticFoldPass, fold_identity<1, true>}}),
    elementwise_op("Div", kArithmeticVersions, eval_arithmetic<std::divides<>, TruncDiv>, infer_arithmetic<int_div>,
                   "T T", kNumericTypes, {{kArithmeticFoldPass, fold_identity<1, false>}}),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(ArithmeticOps, kArithmeticOps);

}  // namespace onnxtrim::ops
