// Sin: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_sin(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::sin(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sin, "", "Sin", (std::vector<int>{7, 22}), eval_sin);
ONNXTRIM_REGISTER_ELEMENTWISE(Sin, "", "Sin");
ONNXTRIM_REGISTER_INFER(Sin, "", "Sin", infer_same);
ONNXTRIM_REGISTER_TYPES(Sin, "", "Sin", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
