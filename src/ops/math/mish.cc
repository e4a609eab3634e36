// Mish: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_mish(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return x * std::tanh(x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x))); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Mish, "", "Mish", (std::vector<int>{18, 22}), eval_mish);
ONNXTRIM_REGISTER_ELEMENTWISE(Mish, "", "Mish");
ONNXTRIM_REGISTER_INFER(Mish, "", "Mish", infer_same);
ONNXTRIM_REGISTER_TYPES(Mish, "", "Mish", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
