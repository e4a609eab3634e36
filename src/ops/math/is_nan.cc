// IsNaN: true where x is NaN.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_is_nan(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor out(DataType::kBool, x.dims());
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < x.numel(); ++i)
      out.mutable_data<uint8_t>()[i] = std::isnan(static_cast<double>(static_cast<compute_t<T>>(x.data<T>()[i])));
  });
  if (!ok) return ctx.unsupported("IsNaN on " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_is_nan(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = DataType::kBool;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(IsNaN, "", "IsNaN", (std::vector<int>{9, 13, 20}), eval_is_nan);
ONNXTRIM_REGISTER_ELEMENTWISE(IsNaN, "", "IsNaN");
ONNXTRIM_REGISTER_INFER(IsNaN, "", "IsNaN", infer_is_nan);
ONNXTRIM_REGISTER_TYPES(IsNaN, "", "IsNaN", "T1", {{"T1", kFloatTypes | kFloat8Types}});

}  // namespace onnxtrim::ops
