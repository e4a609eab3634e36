// BitShift: shifts unsigned integers left or right (direction attribute).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
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

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(BitShift, "", "BitShift", (std::vector<int>{11}), eval_bit_shift);
ONNXTRIM_REGISTER_ELEMENTWISE(BitShift, "", "BitShift");
ONNXTRIM_REGISTER_INFER(BitShift, "", "BitShift", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(BitShift, "", "BitShift", "T T", {{"T", kUnsignedTypes}});

}  // namespace onnxtrim::ops
