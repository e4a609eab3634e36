// HardSigmoid: clamped linear.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_hard_sigmoid(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 0.2f);
  double beta = ctx.node().attr_float("beta", 0.5f);
  return unary_float(ctx, [&](double x) { return std::max(0.0, std::min(1.0, alpha * x + beta)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(HardSigmoid, "", "HardSigmoid", (std::vector<int>{1, 6, 22}), eval_hard_sigmoid);
ONNXTRIM_REGISTER_ELEMENTWISE(HardSigmoid, "", "HardSigmoid");
ONNXTRIM_REGISTER_INFER(HardSigmoid, "", "HardSigmoid", infer_same);
ONNXTRIM_REGISTER_TYPES(HardSigmoid, "", "HardSigmoid", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
