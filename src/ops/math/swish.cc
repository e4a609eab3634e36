// Swish: x * sigmoid(alpha*x).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_swish(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return x / (1.0 + std::exp(-alpha * x)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Swish, "", "Swish", (std::vector<int>{24}), eval_swish);
ONNXTRIM_REGISTER_INFER(Swish, "", "Swish", infer_same);
ONNXTRIM_REGISTER_TYPES(Swish, "", "Swish", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
