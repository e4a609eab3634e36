// Atanh: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_atanh(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::atanh(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Atanh, "", "Atanh", (std::vector<int>{9, 22}), eval_atanh);
ONNXTRIM_REGISTER_ELEMENTWISE(Atanh, "", "Atanh");
ONNXTRIM_REGISTER_INFER(Atanh, "", "Atanh", infer_same);
ONNXTRIM_REGISTER_TYPES(Atanh, "", "Atanh", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
