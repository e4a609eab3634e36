// Atan: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_atan(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::atan(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Atan, "", "Atan", (std::vector<int>{7, 22}), eval_atan);
ONNXTRIM_REGISTER_ELEMENTWISE(Atan, "", "Atan");
ONNXTRIM_REGISTER_INFER(Atan, "", "Atan", infer_same);
ONNXTRIM_REGISTER_TYPES(Atan, "", "Atan", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
