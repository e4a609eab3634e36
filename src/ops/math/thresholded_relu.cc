// ThresholdedRelu: x where x > alpha.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_thresholded_relu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return x > alpha ? x : 0.0; });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ThresholdedRelu, "", "ThresholdedRelu", (std::vector<int>{10, 22}), eval_thresholded_relu);
ONNXTRIM_REGISTER_ELEMENTWISE(ThresholdedRelu, "", "ThresholdedRelu");
ONNXTRIM_REGISTER_INFER(ThresholdedRelu, "", "ThresholdedRelu", infer_same);
ONNXTRIM_REGISTER_TYPES(ThresholdedRelu, "", "ThresholdedRelu", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
