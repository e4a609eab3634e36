// Elu: exponential linear unit.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_elu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return x >= 0 ? x : alpha * (std::exp(x) - 1.0); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Elu, "", "Elu", (std::vector<int>{1, 6, 22}), eval_elu);
ONNXTRIM_REGISTER_ELEMENTWISE(Elu, "", "Elu");
ONNXTRIM_REGISTER_INFER(Elu, "", "Elu", infer_same);
ONNXTRIM_REGISTER_TYPES(Elu, "", "Elu", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
