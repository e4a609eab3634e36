// eliminate_idempotent_ops: Relu(Relu(x)), Floor(Floor(x)) ... -> one op; Neg(Neg(x)), Not(Not(x)) -> x; Reciprocal
// pairs only where exact. The folds themselves live in the op files (ONNXTRIM_REGISTER_FOLD(...,
// "eliminate_idempotent_ops", ...)).
#include "passes/fold_pass.h"

namespace onnxtrim::passes {
namespace {
class EliminateIdempotentOps final : public FoldPass {
 public:
  EliminateIdempotentOps() : FoldPass("eliminate_idempotent_ops") {}
};
}  // namespace

ONNXTRIM_REGISTER_PASS(
    EliminateIdempotentOps, "eliminate_idempotent_ops",
    "Relu(Relu(x)), Floor(Floor(x)) ... -> one op; Neg(Neg(x)), Not(Not(x)) -> x; Reciprocal pairs only where exact");

}  // namespace onnxtrim::passes
