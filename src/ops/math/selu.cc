// Selu: scaled ELU.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_selu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.67326319217681884765625f);
  double gamma = ctx.node().attr_float("gamma", 1.05070102214813232421875f);
  return unary_float(ctx, [&](double x) { return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Selu, "", "Selu", (std::vector<int>{1, 6, 22}), eval_selu);
ONNXTRIM_REGISTER_ELEMENTWISE(Selu, "", "Selu");
ONNXTRIM_REGISTER_INFER(Selu, "", "Selu", infer_same);
ONNXTRIM_REGISTER_TYPES(Selu, "", "Selu", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
