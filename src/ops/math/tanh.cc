// Tanh: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_tanh(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::tanh(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Tanh, "", "Tanh", (std::vector<int>{1, 6, 13}), eval_tanh);
ONNXTRIM_REGISTER_ELEMENTWISE(Tanh, "", "Tanh");
ONNXTRIM_REGISTER_INFER(Tanh, "", "Tanh", infer_same);
ONNXTRIM_REGISTER_TYPES(Tanh, "", "Tanh", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
