// Max: elementwise maximum of any number of inputs (NaN wins).
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_max(KernelContext& ctx) {
  return variadic(ctx, kAllNumeric, [](auto acc, auto v) { return nan_or_max(acc, v, /*more=*/true); }, no_finish);
}

// ---- shape inference (with value propagation: the symbolic max, decided from bounds when
// it can be: max(n, 0) of a dim n is n)
Status infer_max(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_fold<Expr::max>(ctx);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Max, "", "Max", (std::vector<int>{1, 6, 8, 12, 13}), eval_max);
ONNXTRIM_REGISTER_INFER(Max, "", "Max", infer_max);
ONNXTRIM_REGISTER_TYPES(Max, "", "Max", "T...", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
