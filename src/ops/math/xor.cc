// Xor: logical, bools with broadcasting.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_xor(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a != b); });
}

// ---- shape inference (with value propagation of known bools: x XOR y)
Status infer_xor(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto x = a[0].constant_value(), y = a[1].constant_value();
    if (!x || !y) return std::nullopt;
    int64_t c0 = *x != 0, c1 = *y != 0;
    return Expr::constant(c0 + c1 - 2 * c0 * c1);
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Xor, "", "Xor", (std::vector<int>{1, 7}), eval_xor);
ONNXTRIM_REGISTER_ELEMENTWISE(Xor, "", "Xor");
ONNXTRIM_REGISTER_INFER(Xor, "", "Xor", infer_xor);
ONNXTRIM_REGISTER_TYPES(Xor, "", "Xor", "T T", {{"T", type_bits({ir::DataType::kBool})}});

}  // namespace onnxtrim::ops
