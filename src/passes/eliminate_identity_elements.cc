// eliminate_identity_elements: x+0, x-0, x*1, x/1, x**1, And(x,true), Or(x,false) -> x; refuses when the constant's
// broadcast changes the output shape or dtype. The folds themselves live in the op files (ONNXTRIM_REGISTER_FOLD(...,
// "eliminate_identity_elements", ...)).
#include "passes/fold_pass.h"

namespace onnxtrim::passes {
namespace {
class EliminateIdentityElements final : public FoldPass {
 public:
  EliminateIdentityElements() : FoldPass("eliminate_identity_elements") {}
};
}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateIdentityElements, "eliminate_identity_elements",
                       "x+0, x-0, x*1, x/1, x**1, And(x,true), Or(x,false) -> x; refuses when the constant's broadcast "
                       "changes the output shape or dtype");

}  // namespace onnxtrim::passes
