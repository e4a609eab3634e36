// HardSwish: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_hard_swish(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(HardSwish, "", "HardSwish", (std::vector<int>{14, 22}), eval_hard_swish);
ONNXTRIM_REGISTER_ELEMENTWISE(HardSwish, "", "HardSwish");
ONNXTRIM_REGISTER_INFER(HardSwish, "", "HardSwish", infer_same);
ONNXTRIM_REGISTER_TYPES(HardSwish, "", "HardSwish", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
