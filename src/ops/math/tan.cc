// Tan: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_tan(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::tan(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Tan, "", "Tan", (std::vector<int>{7, 22}), eval_tan);
ONNXTRIM_REGISTER_ELEMENTWISE(Tan, "", "Tan");
ONNXTRIM_REGISTER_INFER(Tan, "", "Tan", infer_same);
ONNXTRIM_REGISTER_TYPES(Tan, "", "Tan", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
