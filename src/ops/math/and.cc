// And: logical, bools with broadcasting.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_and(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a && b); });
}

// ---- local folds
// And(x, true) -> x
bool fold_and_true(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 1.0, true); }

// ---- shape inference (with value propagation of known bools: x AND y)
Status infer_and(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto x = a[0].constant_value(), y = a[1].constant_value();
    if (!x || !y) return std::nullopt;
    int64_t c0 = *x != 0, c1 = *y != 0;
    return Expr::constant(c0 * c1);
  });
  propagate_absorbing(ctx, 0);  // x AND false is false whatever x is
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(And, "", "And", (std::vector<int>{1, 7}), eval_and);
ONNXTRIM_REGISTER_ELEMENTWISE(And, "", "And");
ONNXTRIM_REGISTER_INFER(And, "", "And", infer_and);
ONNXTRIM_REGISTER_TYPES(And, "", "And", "T T", {{"T", type_bits({ir::DataType::kBool})}});

ONNXTRIM_REGISTER_FOLD(AndFold0, "", "And", "eliminate_identity_elements", fold_and_true);

}  // namespace onnxtrim::ops
