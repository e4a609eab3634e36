// The ops of any number of inputs: Max, Min, Sum, Mean. What they share: the inputs present, of
// one type, broadcast together; the output of that type starts as the first input and each
// further input is combined into it element by element (math::variadic); all are element-wise.
// Max and Min let NaN win over any number; Sum wraps on integers; Mean sums in the compute type
// and divides once at the end. On integer tensors the shape rule folds the inputs' propagated
// values (Mean's does not).
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
template <bool More>
Status eval_extremum(KernelContext& ctx) {
  return variadic(
      ctx, kAllNumeric, [](auto acc, auto v) { return nan_or_max(acc, v, More); }, no_finish);
}

Status eval_sum(KernelContext& ctx) {
  return variadic(
      ctx, kAllNumeric, [](auto acc, auto v) { return wrap_add(acc, v); }, no_finish);
}

Status eval_mean(KernelContext& ctx) {
  auto add = [](auto acc, auto v) {
    using T = decltype(acc);
    return T(static_cast<compute_t<T>>(acc) + static_cast<compute_t<T>>(v));
  };
  auto divide = [](auto* po, int64_t n, size_t count) {
    using T = std::remove_pointer_t<decltype(po)>;
    if constexpr (!is_int<T>)
      for (int64_t i = 0; i < n; ++i) po[i] = T(static_cast<compute_t<T>>(po[i]) / static_cast<compute_t<T>>(count));
  };
  return variadic(ctx, kAllNumeric, add, divide);
}

// ---- shape inference (with value propagation: Op over the inputs' values; the symbolic max
// and min are decided from bounds when they can be: max(n, 0) of a dim n is n, min(n, 0) is 0;
// Sum's only on integers)
template <Expr (*Op)(const Expr&, const Expr&), bool IntegersOnly>
Status infer_variadic(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (IntegersOnly && !ir::dtype_is_integer(ctx.output(0).elem)) return Status::ok();
  propagate_fold<Op>(ctx);
  return Status::ok();
}

Expr sum_of_two(const Expr& a, const Expr& b) { return a + b; }

// ---- registration (versions from Changelog.md)
const std::vector<int> kVariadicVersions = {1, 6, 8, 13};
const OpRegistration kVariadicOps[] = {
    elementwise_op("Max", {1, 6, 8, 12, 13}, eval_extremum<true>, infer_variadic<Expr::max, false>, "T...",
                   kNumericTypes),
    elementwise_op("Min", {1, 6, 8, 12, 13}, eval_extremum<false>, infer_variadic<Expr::min, false>, "T...",
                   kNumericTypes),
    elementwise_op("Sum", kVariadicVersions, eval_sum, infer_variadic<sum_of_two, true>, "T...", kFloatTypes),
    elementwise_op("Mean", kVariadicVersions, eval_mean, infer_broadcast_same, "T...", kFloatTypes),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(VariadicOps, kVariadicOps);

}  // namespace onnxtrim::ops
