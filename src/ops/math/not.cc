// Not: logical not of bools.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_not(KernelContext& ctx) {
  return unary(ctx, kBool, [](bool v) { return !v; });
}

// ---- local folds
// Not(Not(x)) -> x
bool fold_not_not(ir::Node& n, FoldContext& fc) { return math::fold_involution(n, fc); }

// ---- shape inference (with value propagation of known bools)
Status infer_not(InferContext& ctx) {
  propagate_same(ctx);
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto x = a[0].constant_value();
    if (!x) return std::nullopt;
    return truth(*x == 0);
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Not, "", "Not", (std::vector<int>{1}), eval_not);
ONNXTRIM_REGISTER_ELEMENTWISE(Not, "", "Not");
ONNXTRIM_REGISTER_INFER(Not, "", "Not", infer_not);
ONNXTRIM_REGISTER_TYPES(Not, "", "Not", "T", {{"T", type_bits({ir::DataType::kBool})}});

ONNXTRIM_REGISTER_FOLD(NotFold0, "", "Not", "eliminate_idempotent_ops", fold_not_not);

}  // namespace onnxtrim::ops
