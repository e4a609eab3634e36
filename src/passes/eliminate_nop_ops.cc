// eliminate_nop_ops: no-op
// Cast/Transpose/Reshape/Expand/Flatten/Squeeze/Unsqueeze/Pad/Dropout/Concat/Split/Slice/Tile/Resize removed; fires
// only when the output provably equals the input (shape and dtype). The folds themselves live in the op files
// (ONNXTRIM_REGISTER_FOLD(..., "eliminate_nop_ops", ...)).
#include "passes/fold_pass.h"

namespace onnxtrim::passes {
namespace {
class EliminateNopOps final : public FoldPass {
 public:
  EliminateNopOps() : FoldPass("eliminate_nop_ops") {}
};
}  // namespace

ONNXTRIM_REGISTER_PASS(
    EliminateNopOps, "eliminate_nop_ops",
    "no-op Cast/Transpose/Reshape/Expand/Flatten/Squeeze/Unsqueeze/Pad/Dropout/Concat/Split/Slice/Tile/Resize removed; "
    "fires only when the output provably equals the input (shape and dtype)");

}  // namespace onnxtrim::passes
