// Floor: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_floor(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::floor(x); });
}

// ---- local folds
// Floor(Floor(x)) -> Floor(x)
bool fold_floor_floor(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Floor, "", "Floor", (std::vector<int>{1, 6, 13}), eval_floor);
ONNXTRIM_REGISTER_ELEMENTWISE(Floor, "", "Floor");
ONNXTRIM_REGISTER_INFER(Floor, "", "Floor", infer_same);
ONNXTRIM_REGISTER_TYPES(Floor, "", "Floor", "T", {{"T", kFloatTypes}});

ONNXTRIM_REGISTER_FOLD(FloorFold0, "", "Floor", "eliminate_idempotent_ops", fold_floor_floor);

}  // namespace onnxtrim::ops
