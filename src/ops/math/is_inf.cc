// IsInf: true where x is an infinity of a selected sign.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_is_inf(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  bool neg = ctx.node().attr_int("detect_negative", 1) != 0, pos = ctx.node().attr_int("detect_positive", 1) != 0;
  Tensor out(DataType::kBool, x.dims());
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = static_cast<double>(static_cast<compute_t<T>>(x.data<T>()[i]));
      out.mutable_data<uint8_t>()[i] = std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
    }
  });
  if (!ok) return ctx.unsupported("IsInf on " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_is_inf(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = DataType::kBool;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(IsInf, "", "IsInf", (std::vector<int>{10, 20}), eval_is_inf);
ONNXTRIM_REGISTER_ELEMENTWISE(IsInf, "", "IsInf");
ONNXTRIM_REGISTER_INFER(IsInf, "", "IsInf", infer_is_inf);
ONNXTRIM_REGISTER_TYPES(IsInf, "", "IsInf", "T1", {{"T1", kFloatTypes | kFloat8Types}});

}  // namespace onnxtrim::ops
