// Add: a + b with broadcasting; integers wrap.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_add(KernelContext& ctx) {
  return binary(ctx, kAllNumeric, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int<T>) {
      return wrap_add(a, b);
    } else {
      auto x = static_cast<compute_t<T>>(a);
      auto y = static_cast<compute_t<T>>(b);
      return T(x + y);
    }
  });
}

// ---- shape inference (with value propagation)
Status infer_add(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (!ir::dtype_is_integer(ctx.input(0).elem)) return Status::ok();
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    return a[0] + a[1];
  });
  return Status::ok();
}

// ---- local folds
// x + 0 -> x, 0 + x -> x
bool fold_add_zero(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 0.0, true); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Add, "", "Add", (std::vector<int>{1, 6, 7, 13, 14}), eval_add);
ONNXTRIM_REGISTER_ELEMENTWISE(Add, "", "Add");
ONNXTRIM_REGISTER_INFER(Add, "", "Add", infer_add);
ONNXTRIM_REGISTER_TYPES(Add, "", "Add", "T T", {{"T", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(AddFold0, "", "Add", "eliminate_identity_elements", fold_add_zero);

}  // namespace onnxtrim::ops
