// Softmax: normalized exponentials along an axis (2-D coercion before opset 13).
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_softmax(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Softmax needs an input");
  const Tensor& x = ctx.input(0);
  nn::AxisLayout l;
  std::string err = nn::softmax_layout(ctx.node(), ctx.opset(), x.dims(), &l);
  if (!err.empty()) return ctx.error("Softmax: " + err);
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
        CT m = -std::numeric_limits<CT>::infinity();
        for (CT v : buf) m = std::max(m, v);
        CT s = 0;
        for (CT& v : buf) {
          v = std::exp(v - m);
          s += v;
        }
        for (CT& v : buf) v /= s;
        for (int64_t i = 0; i < l.len; ++i) py[base + i * l.inner] = T(buf[static_cast<size_t>(i)]);
      }
  });
  if (!ok) return ctx.error("Softmax does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_softmax(InferContext& ctx) {
  propagate_same(ctx);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Softmax, "", "Softmax", (std::vector<int>{1, 11, 13}), eval_softmax);
ONNXTRIM_REGISTER_INFER(Softmax, "", "Softmax", infer_softmax);
ONNXTRIM_REGISTER_TYPES(Softmax, "", "Softmax", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
