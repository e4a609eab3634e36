// Ceil: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_ceil(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::ceil(x); });
}

// ---- local folds
// Ceil(Ceil(x)) -> Ceil(x)
bool fold_ceil_ceil(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Ceil, "", "Ceil", (std::vector<int>{1, 6, 13}), eval_ceil);
ONNXTRIM_REGISTER_ELEMENTWISE(Ceil, "", "Ceil");
ONNXTRIM_REGISTER_INFER(Ceil, "", "Ceil", infer_same);
ONNXTRIM_REGISTER_TYPES(Ceil, "", "Ceil", "T", {{"T", kFloatTypes}});

ONNXTRIM_REGISTER_FOLD(CeilFold0, "", "Ceil", "eliminate_idempotent_ops", fold_ceil_ceil);

}  // namespace onnxtrim::ops
