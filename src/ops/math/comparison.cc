// The comparisons: Equal, Less, Greater, LessOrEqual, GreaterOrEqual. What the five share: two
// inputs of one type, broadcast together; a bool output, a Cmp b element by element (numbers
// compared in their compute type, strings as std::string compares them); and a shape rule that
// decides a Cmp b on propagated values from their canonical forms and bounds (a dim is never
// negative, so Shape(x)[0] == -1 is false). One row of the table below is one op: its
// comparison, the bound that decides it, its versions and its types.
#include <functional>

#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
template <typename Cmp>
Status eval_comparison(KernelContext& ctx) {
  if (ctx.has_input(0) && ctx.input(0).dtype() == DataType::kString) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    auto dims = broadcast_shapes(a.dims(), b.dims());
    if (!dims || b.dtype() != DataType::kString) return ctx.error(ctx.node().op_type + ": bad string inputs");
    Tensor out(DataType::kBool, *dims);
    BroadcastIndex ia(a.dims(), *dims), ib(b.dims(), *dims);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const std::string& x = a.strings()[static_cast<size_t>(ia.offset())];
      const std::string& y = b.strings()[static_cast<size_t>(ib.offset())];
      out.mutable_data<uint8_t>()[i] = Cmp{}(x, y);
      ia.next();
      ib.next();
    }
    ctx.set_output(0, std::move(out));
    return Status::ok();
  }
  return binary_to<bool>(ctx, kAllNumeric | kBool, DataType::kBool, [](auto a, auto b) {
    using T = decltype(a);
    return Cmp{}(static_cast<compute_t<T>>(a), static_cast<compute_t<T>>(b));
  });
}

// ---- shape inference (with value propagation): Prove(a, b), or Prove(b, a) when Swap
// (a > b is b < a), gives each element where it decides it.
template <std::optional<bool> (*Prove)(const Expr&, const Expr&), bool Swap>
Status infer_comparison(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast_bool(ctx));
  propagate_values(ctx, {0, 1}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    auto r = Swap ? Prove(a[1], a[0]) : Prove(a[0], a[1]);
    if (!r) return std::nullopt;
    return truth(*r);
  });
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
// A row: two inputs of type T, element-wise.
OpRegistration comparison_op(const char* op, std::vector<int> versions, uint64_t types, EvalFn eval, InferFn infer) {
  return elementwise_op(op, std::move(versions), eval, infer, "T T", types);
}

const uint64_t kEqualTypes = kNumericTypes | type_bits({ir::DataType::kBool, ir::DataType::kString});
const OpRegistration kComparisons[] = {
    comparison_op("Equal", {1, 7, 11, 13, 19}, kEqualTypes, eval_comparison<std::equal_to<>>,
                  infer_comparison<symbolic::prove_eq, false>),
    comparison_op("Less", {1, 7, 9, 13}, kNumericTypes, eval_comparison<std::less<>>,
                  infer_comparison<symbolic::prove_lt, false>),
    comparison_op("Greater", {1, 7, 9, 13}, kNumericTypes, eval_comparison<std::greater<>>,
                  infer_comparison<symbolic::prove_lt, true>),
    comparison_op("LessOrEqual", {12, 16}, kNumericTypes, eval_comparison<std::less_equal<>>,
                  infer_comparison<symbolic::prove_le, false>),
    comparison_op("GreaterOrEqual", {12, 16}, kNumericTypes, eval_comparison<std::greater_equal<>>,
                  infer_comparison<symbolic::prove_le, true>),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Comparisons, kComparisons);

}  // namespace onnxtrim::ops
