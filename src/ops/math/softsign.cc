// Softsign: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_softsign(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return x / (1.0 + std::fabs(x)); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Softsign, "", "Softsign", (std::vector<int>{1, 22}), eval_softsign);
ONNXTRIM_REGISTER_ELEMENTWISE(Softsign, "", "Softsign");
ONNXTRIM_REGISTER_INFER(Softsign, "", "Softsign", infer_same);
ONNXTRIM_REGISTER_TYPES(Softsign, "", "Softsign", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
