// BitwiseOr: bitwise on integers with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_bitwise_or(KernelContext& ctx) {
  return binary(ctx, kSigned | kUnsigned, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) return static_cast<T>(a | b);
    else return a;  // not reached: integers only
  });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(BitwiseOr, "", "BitwiseOr", (std::vector<int>{18}), eval_bitwise_or);
ONNXTRIM_REGISTER_ELEMENTWISE(BitwiseOr, "", "BitwiseOr");
ONNXTRIM_REGISTER_INFER(BitwiseOr, "", "BitwiseOr", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(BitwiseOr, "", "BitwiseOr", "T T", {{"T", kIntTypes}});

}  // namespace onnxtrim::ops
