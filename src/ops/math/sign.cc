// Sign: -1, 0 or 1.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
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

// ---- local folds
// Sign(Sign(x)) -> Sign(x)
bool fold_sign_sign(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sign, "", "Sign", (std::vector<int>{9, 13}), eval_sign);
ONNXTRIM_REGISTER_ELEMENTWISE(Sign, "", "Sign");
ONNXTRIM_REGISTER_INFER(Sign, "", "Sign", infer_same);
ONNXTRIM_REGISTER_TYPES(Sign, "", "Sign", "T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(SignFold0, "", "Sign", "eliminate_idempotent_ops", fold_sign_sign);

}  // namespace onnxtrim::ops
