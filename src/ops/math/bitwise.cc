// The bitwise ops on integers: BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot and BitShift. What
// they share: inputs of one integer type, broadcast together, and an output of that type whose
// every element is computed from the bits of the same (broadcast) elements; all are
// element-wise. BitwiseAnd/Or/Xor differ only in the operator; BitwiseNot (one input) and
// BitShift (unsigned only, its direction an attribute, shifts by the width or more give 0) have
// kernels of their own.
#include <functional>

#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
// a Op b on signed and unsigned integers.
template <typename Op>
Status eval_bitwise(KernelContext& ctx) {
  return binary(ctx, kSigned | kUnsigned, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) return static_cast<T>(Op{}(a, b));
    else return a;  // not reached: integers only
  });
}

Status eval_bitwise_not(KernelContext& ctx) {
  return unary(ctx, kSigned | kUnsigned, [](auto v) {
    using T = decltype(v);
    if constexpr (is_int<T>) return static_cast<T>(~v);
    else return v;  // not reached: integers only
  });
}

Status eval_bit_shift(KernelContext& ctx) {
  bool left = ctx.node().attr_string("direction", "") == "LEFT";
  return binary(ctx, kUnsigned, [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      if (b >= sizeof(T) * 8) return T(0);
      return left ? static_cast<T>(a << b) : static_cast<T>(a >> b);
    } else {
      return a;  // not reached: BitShift takes unsigned integers only
    }
  });
}

// ---- registration (versions from Changelog.md)
const OpRegistration kBitwiseOps[] = {
    elementwise_op("BitwiseAnd", {18}, eval_bitwise<std::bit_and<>>, infer_broadcast_same, "T T", kIntTypes),
    elementwise_op("BitwiseOr", {18}, eval_bitwise<std::bit_or<>>, infer_broadcast_same, "T T", kIntTypes),
    elementwise_op("BitwiseXor", {18}, eval_bitwise<std::bit_xor<>>, infer_broadcast_same, "T T", kIntTypes),
    elementwise_op("BitwiseNot", {18}, eval_bitwise_not, infer_same, "T", kIntTypes),
    elementwise_op("BitShift", {11}, eval_bit_shift, infer_broadcast_same, "T T", kUnsignedTypes),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(BitwiseOps, kBitwiseOps);

}  // namespace onnxtrim::ops
