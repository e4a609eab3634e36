// And: logical, bools with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_and(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a && b); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(And, "", "And", (std::vector<int>{1, 7}), eval_and);
ONNXTRIM_REGISTER_INFER(And, "", "And", infer_broadcast_same);

}  // namespace onnxtrim::ops
