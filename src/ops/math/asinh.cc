// Asinh: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_asinh(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::asinh(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Asinh, "", "Asinh", (std::vector<int>{9, 22}), eval_asinh);
ONNXTRIM_REGISTER_ELEMENTWISE(Asinh, "", "Asinh");
ONNXTRIM_REGISTER_INFER(Asinh, "", "Asinh", infer_same);
ONNXTRIM_REGISTER_TYPES(Asinh, "", "Asinh", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
