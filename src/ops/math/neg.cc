// Neg: -x (integers wrap).
#include "ops/math/elementwise.h"

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

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Neg, "", "Neg", (std::vector<int>{1, 6, 13}), eval_neg);
ONNXTRIM_REGISTER_INFER(Neg, "", "Neg", infer_same);

}  // namespace onnxtrim::ops
