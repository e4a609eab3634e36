// Hardmax: one-hot of the first maximum along an axis (2-D coercion before opset 13).
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_hardmax(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Hardmax needs an input");
  const Tensor& x = ctx.input(0);
  nn::AxisLayout l;
  std::string err = nn::softmax_layout(ctx.node(), ctx.opset(), x.dims(), &l);
  if (!err.empty()) return ctx.error("Hardmax: " + err);
  Tensor y(x.dtype(), x.dims());
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT = std::conditional_t<std::is_same_v<T, double>, double, float>;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    std::vector<CT> buf(static_cast<size_t>(l.len));
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t in = 0; in < l.inner; ++in) {
        int64_t base = o * l.len * l.inner + in;
        for (int64_t i = 0; i < l.len; ++i) buf[static_cast<size_t>(i)] = static_cast<CT>(px[base + i * l.inner]);
        size_t best = 0;
        for (size_t i = 1; i < buf.size(); ++i)
          if (buf[i] > buf[best]) best = i;
        for (size_t i = 0; i < buf.size(); ++i) buf[i] = i == best ? CT(1) : CT(0);
        for (int64_t i = 0; i < l.len; ++i) py[base + i * l.inner] = T(buf[static_cast<size_t>(i)]);
      }
  });
  if (!ok) return ctx.error("Hardmax does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_hardmax(InferContext& ctx) {
  propagate_same(ctx);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Hardmax, "", "Hardmax", (std::vector<int>{1, 11, 13}), eval_hardmax);
ONNXTRIM_REGISTER_INFER(Hardmax, "", "Hardmax", infer_hardmax);
ONNXTRIM_REGISTER_TYPES(Hardmax, "", "Hardmax", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
