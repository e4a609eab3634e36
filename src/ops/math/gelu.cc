// Gelu: x * Phi(x), exact (erf) or tanh approximation.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_gelu(KernelContext& ctx) {
  bool tanh_approx = ctx.node().attr_string("approximate", "none") == "tanh";
  return unary_float(ctx, [&](double x) {
    if (tanh_approx) return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Gelu, "", "Gelu", (std::vector<int>{20}), eval_gelu);
ONNXTRIM_REGISTER_ELEMENTWISE(Gelu, "", "Gelu");
ONNXTRIM_REGISTER_INFER(Gelu, "", "Gelu", infer_same);
ONNXTRIM_REGISTER_TYPES(Gelu, "", "Gelu", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
