// Min: elementwise minimum of any number of inputs (NaN wins).
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_min(KernelContext& ctx) {
  return variadic(ctx, kAllNumeric, [](auto acc, auto v) { return nan_or_max(acc, v, /*more=*/false); }, no_finish);
}

// ---- shape inference (with value propagation: the symbolic min, decided from bounds when
// it can be: min(n, 0) of a dim n is 0)
Status infer_min(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_fold<Expr::min>(ctx);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Min, "", "Min", (std::vector<int>{1, 6, 8, 12, 13}), eval_min);
ONNXTRIM_REGISTER_INFER(Min, "", "Min", infer_min);
ONNXTRIM_REGISTER_TYPES(Min, "", "Min", "T...", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
