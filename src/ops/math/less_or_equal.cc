// LessOrEqual: elementwise comparison with broadcasting; the output is bool.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_less_or_equal(KernelContext& ctx) {
  if (ctx.has_input(0) && ctx.input(0).dtype() == DataType::kString) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    auto dims = broadcast_shapes(a.dims(), b.dims());
    if (!dims || b.dtype() != DataType::kString) return ctx.error("LessOrEqual: bad string inputs");
    Tensor out(DataType::kBool, *dims);
    BroadcastIndex ia(a.dims(), *dims), ib(b.dims(), *dims);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const std::string& x = a.strings()[static_cast<size_t>(ia.offset())];
      const std::string& y = b.strings()[static_cast<size_t>(ib.offset())];
      out.mutable_data<uint8_t>()[i] = x <= y;
      ia.next();
      ib.next();
    }
    ctx.set_output(0, std::move(out));
    return Status::ok();
  }
  return binary_to<bool>(ctx, kAllNumeric | kBool, DataType::kBool, [](auto a, auto b) {
    using T = decltype(a);
    auto x = static_cast<compute_t<T>>(a);
    auto y = static_cast<compute_t<T>>(b);
    return x <= y;
  });
}

// ---- shape inference (with value propagation): a <= b decided from the values' canonical
// forms and bounds (a dim is never negative, so Shape(x)[0] == -1 is false).
Status infer_less_or_equal(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast_bool(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto r = symbolic::prove_le(a[0], a[1]);
    if (!r) return std::nullopt;
    return truth(*r);
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LessOrEqual, "", "LessOrEqual", (std::vector<int>{12, 16}), eval_less_or_equal);
ONNXTRIM_REGISTER_ELEMENTWISE(LessOrEqual, "", "LessOrEqual");
ONNXTRIM_REGISTER_INFER(LessOrEqual, "", "LessOrEqual", infer_less_or_equal);
ONNXTRIM_REGISTER_TYPES(LessOrEqual, "", "LessOrEqual", "T T", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
