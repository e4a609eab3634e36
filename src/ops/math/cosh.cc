// Cosh: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_cosh(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::cosh(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Cosh, "", "Cosh", (std::vector<int>{9, 22}), eval_cosh);
ONNXTRIM_REGISTER_ELEMENTWISE(Cosh, "", "Cosh");
ONNXTRIM_REGISTER_INFER(Cosh, "", "Cosh", infer_same);
ONNXTRIM_REGISTER_TYPES(Cosh, "", "Cosh", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
