// Log: elementwise, float types (computed in double, rounded to the type).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_log(KernelContext& ctx) {
  return unary_float(ctx, [&](double x) { return std::log(x); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Log, "", "Log", (std::vector<int>{1, 6, 13}), eval_log);
ONNXTRIM_REGISTER_ELEMENTWISE(Log, "", "Log");
ONNXTRIM_REGISTER_INFER(Log, "", "Log", infer_same);
ONNXTRIM_REGISTER_TYPES(Log, "", "Log", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
