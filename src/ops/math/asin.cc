// Asin: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_asin(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::asin(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Asin, "", "Asin", (std::vector<int>{7, 22}), eval_asin);
ONNXTRIM_REGISTER_ELEMENTWISE(Asin, "", "Asin");
ONNXTRIM_REGISTER_INFER(Asin, "", "Asin", infer_same);
ONNXTRIM_REGISTER_TYPES(Asin, "", "Asin", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
