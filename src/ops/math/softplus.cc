// Softplus: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_softplus(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Softplus, "", "Softplus", (std::vector<int>{1, 22}), eval_softplus);
ONNXTRIM_REGISTER_ELEMENTWISE(Softplus, "", "Softplus");
ONNXTRIM_REGISTER_INFER(Softplus, "", "Softplus", infer_same);
ONNXTRIM_REGISTER_TYPES(Softplus, "", "Softplus", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
