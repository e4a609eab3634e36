// Abs: |x| (integers wrap for the minimum value).
#include "ops/math/elementwise.h"

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

// ---- local folds
// Abs(Abs(x)) -> Abs(x)
bool fold_abs_abs(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Abs, "", "Abs", (std::vector<int>{1, 6, 13}), eval_abs);
ONNXTRIM_REGISTER_INFER(Abs, "", "Abs", infer_same);
ONNXTRIM_REGISTER_TYPES(Abs, "", "Abs", "T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(AbsFold0, "", "Abs", "eliminate_idempotent_ops", fold_abs_abs);

}  // namespace onnxtrim::ops
