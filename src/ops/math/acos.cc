// Acos: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_acos(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::acos(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Acos, "", "Acos", (std::vector<int>{7, 22}), eval_acos);
ONNXTRIM_REGISTER_ELEMENTWISE(Acos, "", "Acos");
ONNXTRIM_REGISTER_INFER(Acos, "", "Acos", infer_same);
ONNXTRIM_REGISTER_TYPES(Acos, "", "Acos", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
