// Or: logical, bools with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_or(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a || b); });
}

// ---- local folds
// Or(x, false) -> x
bool fold_or_false(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 0.0, true); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Or, "", "Or", (std::vector<int>{1, 7}), eval_or);
ONNXTRIM_REGISTER_INFER(Or, "", "Or", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(Or, "", "Or", "T T", {{"T", type_bits({ir::DataType::kBool})}});

ONNXTRIM_REGISTER_FOLD(OrFold0, "", "Or", "eliminate_identity_elements", fold_or_false);

}  // namespace onnxtrim::ops
