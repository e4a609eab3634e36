// Sigmoid: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_sigmoid(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sigmoid, "", "Sigmoid", (std::vector<int>{1, 6, 13}), eval_sigmoid);
ONNXTRIM_REGISTER_ELEMENTWISE(Sigmoid, "", "Sigmoid");
ONNXTRIM_REGISTER_INFER(Sigmoid, "", "Sigmoid", infer_same);
ONNXTRIM_REGISTER_TYPES(Sigmoid, "", "Sigmoid", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
