// Round: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_round(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::nearbyint(x); });
}

// ---- local folds
// Round(Round(x)) -> Round(x)
bool fold_round_round(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Round, "", "Round", (std::vector<int>{11, 22}), eval_round);
ONNXTRIM_REGISTER_ELEMENTWISE(Round, "", "Round");
ONNXTRIM_REGISTER_INFER(Round, "", "Round", infer_same);
ONNXTRIM_REGISTER_TYPES(Round, "", "Round", "T", {{"T", kFloatTypes}});

ONNXTRIM_REGISTER_FOLD(RoundFold0, "", "Round", "eliminate_idempotent_ops", fold_round_round);

}  // namespace onnxtrim::ops
