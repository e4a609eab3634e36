// Ceil: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_ceil(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::ceil(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Ceil, "", "Ceil", (std::vector<int>{1, 6, 13}), eval_ceil);
ONNXTRIM_REGISTER_INFER(Ceil, "", "Ceil", infer_same);

}  // namespace onnxtrim::ops
