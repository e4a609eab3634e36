// Cos: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_cos(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::cos(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Cos, "", "Cos", (std::vector<int>{7, 22}), eval_cos);
ONNXTRIM_REGISTER_ELEMENTWISE(Cos, "", "Cos");
ONNXTRIM_REGISTER_INFER(Cos, "", "Cos", infer_same);
ONNXTRIM_REGISTER_TYPES(Cos, "", "Cos", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
