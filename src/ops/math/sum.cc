// Sum: elementwise sum of any number of inputs, with broadcasting.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_sum(KernelContext& ctx) {
  return variadic(ctx, kAllNumeric, [](auto acc, auto v) { return wrap_add(acc, v); }, no_finish);
}

// ---- shape inference (with value propagation on integers: the symbolic sum)
Expr sum_of_two(const Expr& a, const Expr& b) { return a + b; }

Status infer_sum(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (!ir::dtype_is_integer(ctx.output(0).elem)) return Status::ok();
  propagate_fold<sum_of_two>(ctx);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sum, "", "Sum", (std::vector<int>{1, 6, 8, 13}), eval_sum);
ONNXTRIM_REGISTER_ELEMENTWISE(Sum, "", "Sum");
ONNXTRIM_REGISTER_INFER(Sum, "", "Sum", infer_sum);
ONNXTRIM_REGISTER_TYPES(Sum, "", "Sum", "T...", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
