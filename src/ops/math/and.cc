// And: logical, bools with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_and(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a && b); });
}

// ---- local folds
// And(x, true) -> x
bool fold_and_true(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 1.0, true); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(And, "", "And", (std::vector<int>{1, 7}), eval_and);
ONNXTRIM_REGISTER_INFER(And, "", "And", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(And, "", "And", "T T", {{"T", type_bits({ir::DataType::kBool})}});

ONNXTRIM_REGISTER_FOLD(AndFold0, "", "And", "eliminate_identity_elements", fold_and_true);

}  // namespace onnxtrim::ops
