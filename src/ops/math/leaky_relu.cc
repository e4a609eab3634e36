// LeakyRelu: x or alpha*x.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_leaky_relu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 0.01f);
  return unary_float(ctx, [&](double x) { return x >= 0 ? x : alpha * x; });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LeakyRelu, "", "LeakyRelu", (std::vector<int>{1, 6, 16}), eval_leaky_relu);
ONNXTRIM_REGISTER_ELEMENTWISE(LeakyRelu, "", "LeakyRelu");
ONNXTRIM_REGISTER_INFER(LeakyRelu, "", "LeakyRelu", infer_same);
ONNXTRIM_REGISTER_TYPES(LeakyRelu, "", "LeakyRelu", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
