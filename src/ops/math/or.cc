// Or: logical, bools with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_or(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a || b); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Or, "", "Or", (std::vector<int>{1, 7}), eval_or);
ONNXTRIM_REGISTER_INFER(Or, "", "Or", infer_broadcast_same);

}  // namespace onnxtrim::ops
