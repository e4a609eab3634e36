// Acosh: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_acosh(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::acosh(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Acosh, "", "Acosh", (std::vector<int>{9, 22}), eval_acosh);
ONNXTRIM_REGISTER_ELEMENTWISE(Acosh, "", "Acosh");
ONNXTRIM_REGISTER_INFER(Acosh, "", "Acosh", infer_same);
ONNXTRIM_REGISTER_TYPES(Acosh, "", "Acosh", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
