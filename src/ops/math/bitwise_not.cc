// BitwiseNot: bitwise complement of integers.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_bitwise_not(KernelContext& ctx) {
  return unary(ctx, kSigned | kUnsigned, [](auto v) {
    using T = decltype(v);
    if constexpr (is_int<T>) return static_cast<T>(~v);
    else return v;  // not reached: integers only
  });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(BitwiseNot, "", "BitwiseNot", (std::vector<int>{18}), eval_bitwise_not);
ONNXTRIM_REGISTER_ELEMENTWISE(BitwiseNot, "", "BitwiseNot");
ONNXTRIM_REGISTER_INFER(BitwiseNot, "", "BitwiseNot", infer_same);
ONNXTRIM_REGISTER_TYPES(BitwiseNot, "", "BitwiseNot", "T", {{"T", kIntTypes}});

}  // namespace onnxtrim::ops
