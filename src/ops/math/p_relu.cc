// PRelu: x or slope*x, the slope broadcast to x.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_p_relu(KernelContext& ctx) {
  return binary(ctx, kFloats | kSigned | kUnsigned, [](auto x, auto s) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) return x;  // not reached: no bool PRelu
    else if constexpr (is_int<T>) return x < 0 ? wrap_mul(x, s) : x;
    else return static_cast<compute_t<T>>(x) < 0 ? T(static_cast<compute_t<T>>(x) * static_cast<compute_t<T>>(s)) : x;
  });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(PRelu, "", "PRelu", (std::vector<int>{1, 6, 7, 9, 16}), eval_p_relu);
ONNXTRIM_REGISTER_INFER(PRelu, "", "PRelu", infer_broadcast_same);

}  // namespace onnxtrim::ops
