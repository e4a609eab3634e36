// PRelu: x or slope*x, the slope broadcast to x. Before opset 7 a 1-D slope of x's channel
// count applies per channel (axis 1), as those versions had no general broadcasting.
#include "ops/math/elementwise.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_p_relu(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("PRelu needs x and slope");
  const Tensor& x = ctx.input(0);
  Tensor slope = ctx.input(1);
  if (ctx.opset() < 7 && x.rank() >= 2 && slope.rank() == 1 && slope.dims()[0] == x.dims()[1] && slope.dims()[0] != 1) {
    Dims d(static_cast<size_t>(x.rank() - 1), 1);
    d[0] = slope.dims()[0];
    slope = tensor::reshaped(slope, d);
  }
  if (x.dtype() != slope.dtype()) return ctx.error("PRelu inputs have different types");
  auto dims = broadcast_shapes(x.dims(), slope.dims());
  if (!dims || *dims != x.dims()) return ctx.error("PRelu slope cannot be broadcast to x");
  bool ok = dispatch(x.dtype(), kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ctx.set_output(0, broadcast_binary<T, T>(x, slope, *dims, x.dtype(), [](T v, T s) -> T {
                     if constexpr (std::is_same_v<T, bool>) return v;  // not reached: no bool PRelu
                     else if constexpr (is_int<T>) return v < 0 ? wrap_mul(v, s) : v;
                     else
                       return static_cast<compute_t<T>>(v) < 0
                                  ? T(static_cast<compute_t<T>>(v) * static_cast<compute_t<T>>(s))
                                  : v;
                   }));
  });
  if (!ok) return ctx.error("PRelu does not take " + std::string(ir::dtype_name(x.dtype())));
  return Status::ok();
}

// ---- shape inference: x's type and shape
Status infer_p_relu(InferContext& ctx) {
  if (ctx.opset() < 7) return infer_same(ctx);
  return infer_broadcast_same(ctx);
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(PRelu, "", "PRelu", (std::vector<int>{1, 6, 7, 9, 16}), eval_p_relu);
ONNXTRIM_REGISTER_ELEMENTWISE(PRelu, "", "PRelu");
ONNXTRIM_REGISTER_INFER(PRelu, "", "PRelu", infer_p_relu);
ONNXTRIM_REGISTER_TYPES(PRelu, "", "PRelu", "T T",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64,
                                                        ir::DataType::kUint32, ir::DataType::kUint64})}});

}  // namespace onnxtrim::ops
