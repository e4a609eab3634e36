// Erf: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_erf(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::erf(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Erf, "", "Erf", (std::vector<int>{9, 13}), eval_erf);
ONNXTRIM_REGISTER_ELEMENTWISE(Erf, "", "Erf");
ONNXTRIM_REGISTER_INFER(Erf, "", "Erf", infer_same);
ONNXTRIM_REGISTER_TYPES(Erf, "", "Erf", "T", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
