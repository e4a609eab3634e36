// Sqrt: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_sqrt(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::sqrt(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sqrt, "", "Sqrt", (std::vector<int>{1, 6, 13}), eval_sqrt);
ONNXTRIM_REGISTER_ELEMENTWISE(Sqrt, "", "Sqrt");
ONNXTRIM_REGISTER_INFER(Sqrt, "", "Sqrt", infer_same);
ONNXTRIM_REGISTER_TYPES(Sqrt, "", "Sqrt", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
