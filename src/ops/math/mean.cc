// Mean: elementwise mean of any number of inputs, with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_mean(KernelContext& ctx) {
  auto add = [](auto acc, auto v) {
    using T = decltype(acc);
    return T(static_cast<compute_t<T>>(acc) + static_cast<compute_t<T>>(v));
  };
  auto divide = [](auto* po, int64_t n, size_t count) {
    using T = std::remove_pointer_t<decltype(po)>;
    if constexpr (!is_int<T>)
      for (int64_t i = 0; i < n; ++i) po[i] = T(static_cast<compute_t<T>>(po[i]) / static_cast<compute_t<T>>(count));
  };
  return variadic(ctx, kAllNumeric, add, divide);
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Mean, "", "Mean", (std::vector<int>{1, 6, 8, 13}), eval_mean);
ONNXTRIM_REGISTER_INFER(Mean, "", "Mean", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(Mean, "", "Mean", "T...", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
