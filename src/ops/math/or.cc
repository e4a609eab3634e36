// Or: logical, bools with broadcasting.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_or(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a || b); });
}

// ---- local folds
// Or(x, false) -> x
bool fold_or_false(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 0.0, true); }

// ---- shape inference (with value propagation of known bools: x OR y)
Status infer_or(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto x = a[0].constant_value(), y = a[1].constant_value();
    if (!x || !y) return std::nullopt;
    int64_t c0 = *x != 0, c1 = *y != 0;
    return Expr::constant(c0 + c1 - c0 * c1);
  });
  propagate_absorbing(ctx, 1);  // x OR true is true whatever x is
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Or, "", "Or", (std::vector<int>{1, 7}), eval_or);
ONNXTRIM_REGISTER_ELEMENTWISE(Or, "", "Or");
ONNXTRIM_REGISTER_INFER(Or, "", "Or", infer_or);
ONNXTRIM_REGISTER_TYPES(Or, "", "Or", "T T", {{"T", type_bits({ir::DataType::kBool})}});

ONNXTRIM_REGISTER_FOLD(OrFold0, "", "Or", "eliminate_identity_elements", fold_or_false);

}  // namespace onnxtrim::ops
