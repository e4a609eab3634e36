// Exp: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_exp(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::exp(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Exp, "", "Exp", (std::vector<int>{1, 6, 13}), eval_exp);
ONNXTRIM_REGISTER_ELEMENTWISE(Exp, "", "Exp");
ONNXTRIM_REGISTER_INFER(Exp, "", "Exp", infer_same);
ONNXTRIM_REGISTER_TYPES(Exp, "", "Exp", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
