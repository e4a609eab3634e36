// Celu: continuously differentiable ELU.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_celu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1.0)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Celu, "", "Celu", (std::vector<int>{12, 28}), eval_celu);
ONNXTRIM_REGISTER_ELEMENTWISE(Celu, "", "Celu");
ONNXTRIM_REGISTER_INFER(Celu, "", "Celu", infer_same);
ONNXTRIM_REGISTER_TYPES(Celu, "", "Celu", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
