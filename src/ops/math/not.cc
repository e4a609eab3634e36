// Not: logical not of bools.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_not(KernelContext& ctx) {
  return unary(ctx, kBool, [](bool v) { return !v; });
}

// ---- local folds
// Not(Not(x)) -> x
bool fold_not_not(ir::Node& n, FoldContext& fc) { return math::fold_involution(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Not, "", "Not", (std::vector<int>{1}), eval_not);
ONNXTRIM_REGISTER_INFER(Not, "", "Not", infer_same);
ONNXTRIM_REGISTER_TYPES(Not, "", "Not", "T", {{"T", type_bits({ir::DataType::kBool})}});

ONNXTRIM_REGISTER_FOLD(NotFold0, "", "Not", "eliminate_idempotent_ops", fold_not_not);

}  // namespace onnxtrim::ops
