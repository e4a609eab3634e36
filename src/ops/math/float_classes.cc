// The classes of float values: IsInf (an infinity of a selected sign), IsNaN. What they share:
// one float input, a bool output of its shape, true where the element, read in double, is of
// the class; element-wise. A float type the kernels do not read (float8) is unsupported.
#include <cmath>

#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate: out[i] = In(x[i]) for the node's In(double)
template <typename MakeTest>
Status eval_float_class(KernelContext& ctx, MakeTest make_test) {
  const Tensor& x = ctx.input(0);
  auto in_class = make_test(ctx.node());
  Tensor out(DataType::kBool, x.dims());
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < x.numel(); ++i)
      out.mutable_data<uint8_t>()[i] = in_class(static_cast<double>(static_cast<compute_t<T>>(x.data<T>()[i])));
  });
  if (!ok) return ctx.unsupported(ctx.node().op_type + " on " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

Status eval_is_inf(KernelContext& ctx) {
  return eval_float_class(ctx, [](const ir::Node& n) {
    bool neg = n.attr_int("detect_negative", 1) != 0, pos = n.attr_int("detect_positive", 1) != 0;
    return [neg, pos](double v) { return std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg)); };
  });
}

Status eval_is_nan(KernelContext& ctx) {
  return eval_float_class(ctx, [](const ir::Node&) { return [](double v) { return std::isnan(v); }; });
}

// ---- shape inference: the input's shape, bool
Status infer_float_class(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = DataType::kBool;
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
OpRegistration float_class(const char* op, std::vector<int> versions, EvalFn eval) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer_float_class,
          .signature = "T1",
          .types = {{"T1", kFloatTypes | kFloat8Types}},
          .properties = {OpProperty::kElementwise}};
}
const OpRegistration kFloatClasses[] = {
    float_class("IsInf", {10, 20}, eval_is_inf),
    float_class("IsNaN", {9, 13, 20}, eval_is_nan),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(FloatClasses, kFloatClasses);

}  // namespace onnxtrim::ops
