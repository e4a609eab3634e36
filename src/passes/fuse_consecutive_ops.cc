// fuse_consecutive_ops: Transpose∘Transpose, Reshape∘Reshape, Squeeze/Unsqueeze pairs, Unsqueeze∘Unsqueeze (one
// Unsqueeze of the merged axes), Cast∘Cast where the middle type loses nothing. The folds themselves live in the op
// files (ONNXTRIM_REGISTER_FOLD(..., "fuse_consecutive_ops", ...)).
#include "passes/fold_pass.h"

namespace onnxtrim::passes {
namespace {
class FuseConsecutiveOps final : public FoldPass {
 public:
  FuseConsecutiveOps() : FoldPass("fuse_consecutive_ops") {}
};
}  // namespace

ONNXTRIM_REGISTER_PASS(FuseConsecutiveOps, "fuse_consecutive_ops",
                       "Transpose∘Transpose, Reshape∘Reshape, Squeeze/Unsqueeze pairs, Unsqueeze∘Unsqueeze (one "
                       "Unsqueeze of the merged axes), Cast∘Cast where the middle type loses nothing");

}  // namespace onnxtrim::passes
