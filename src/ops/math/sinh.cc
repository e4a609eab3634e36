// Sinh: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_sinh(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::sinh(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sinh, "", "Sinh", (std::vector<int>{9, 22}), eval_sinh);
ONNXTRIM_REGISTER_ELEMENTWISE(Sinh, "", "Sinh");
ONNXTRIM_REGISTER_INFER(Sinh, "", "Sinh", infer_same);
ONNXTRIM_REGISTER_TYPES(Sinh, "", "Sinh", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
