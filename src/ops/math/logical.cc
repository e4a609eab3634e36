// The logical ops on bools: And, Or, Xor and Not. What they share: bool inputs broadcast
// together, a bool output, element-wise; their shape rule propagates known bools (a value
// known as 0 or 1), so that a condition computed from shapes is known before folding. And/Or/Xor
// differ only in the operator, and And and Or in their identity (x AND true, x OR false are x)
// and absorbing element (x AND false is false, x OR true is true, whatever x is): And(x, c) and
// And(c, x) fold to x where c is true everywhere, Or's where c is false. Not (one input) is an
// involution: Not(Not(x)) -> x.
#include <functional>

#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
template <typename Op>
Status eval_logical(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(Op{}(a, b)); });
}

Status eval_not(KernelContext& ctx) {
  return unary(ctx, kBool, [](bool v) { return !v; });
}

// ---- shape inference (with value propagation of known bools: x Op y; when Absorbing is 0 or
// 1, an input known to be Absorbing everywhere makes the output so, whatever the other holds)
template <typename Op, int Absorbing>
Status infer_logical(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto x = a[0].constant_value(), y = a[1].constant_value();
    if (!x || !y) return std::nullopt;
    return truth(Op{}(*x != 0, *y != 0));
  });
  if constexpr (Absorbing >= 0) propagate_absorbing(ctx, Absorbing);
  return Status::ok();
}

Status infer_not(InferContext& ctx) {
  propagate_same(ctx);
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto x = a[0].constant_value();
    if (!x) return std::nullopt;
    return truth(*x == 0);
  });
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
const uint64_t kLogicalTypes = type_bits({ir::DataType::kBool});
const OpRegistration kLogicalOps[] = {
    elementwise_op("And", {1, 7}, eval_logical<std::logical_and<>>, infer_logical<std::logical_and<>, 0>, "T T",
                   kLogicalTypes, {{"eliminate_identity_elements", fold_identity<1, true>}}),
    elementwise_op("Or", {1, 7}, eval_logical<std::logical_or<>>, infer_logical<std::logical_or<>, 1>, "T T",
                   kLogicalTypes, {{"eliminate_identity_elements", fold_identity<0, true>}}),
    elementwise_op("Xor", {1, 7}, eval_logical<std::not_equal_to<>>, infer_logical<std::not_equal_to<>, -1>, "T T",
                   kLogicalTypes),
    elementwise_op("Not", {1}, eval_not, infer_not, "T", kLogicalTypes,
                   {{"eliminate_idempotent_ops", fold_involution}}),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(LogicalOps, kLogicalOps);

}  // namespace onnxtrim::ops
