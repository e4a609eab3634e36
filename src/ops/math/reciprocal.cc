// Reciprocal: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_reciprocal(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return 1.0 / x; });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Reciprocal, "", "Reciprocal", (std::vector<int>{1, 6, 13}), eval_reciprocal);
ONNXTRIM_REGISTER_ELEMENTWISE(Reciprocal, "", "Reciprocal");
ONNXTRIM_REGISTER_INFER(Reciprocal, "", "Reciprocal", infer_same);
ONNXTRIM_REGISTER_TYPES(Reciprocal, "", "Reciprocal", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
