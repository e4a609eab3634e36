// LpPool: windowed p-norm.
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_lp_pool(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("LpPool needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 3) return ctx.error("LpPool input must have rank >= 3");
  const ir::Node& node = ctx.node();
  nn::Geometry g;
  g.in.assign(x.dims().begin() + 2, x.dims().end());
  g.kernel = node.attr_ints("kernel_shape");
  if (g.kernel.empty()) return ctx.error("LpPool requires kernel_shape");
  bool ceil_mode = ctx.opset() >= 18 && node.attr_int("ceil_mode", 0) != 0;
  std::string err = nn::compute_geometry(node, &g, ceil_mode);
  if (!err.empty()) return ctx.error("LpPool: " + err);
  double p;
  if (ctx.opset() < 2) p = node.attr_float("p", 2.f);
  else p = static_cast<double>(node.attr_int("p", 2));
  if (p <= 0) return ctx.error("LpPool p must be positive");
  int64_t N = x.dims()[0], C = x.dims()[1];
  Dims out_dims{N, C};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out);
  Tensor y(x.dtype(), out_dims);
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    double sum = 0;
    const T* plane_ptr = px;
    nn::for_each_window(
        N * C, g, [&] { sum = 0; },
        [&](int64_t off, const std::vector<int64_t>&) {
          double v = std::fabs(static_cast<double>(plane_ptr[off]));
          sum += p == 2 ? v * v : p == 1 ? v : std::pow(v, p);
        },
        [&](int64_t plane, int64_t o, int64_t) {
          double r = p == 2 ? std::sqrt(sum) : p == 1 ? sum : std::pow(sum, 1.0 / p);
          py[plane * out_size + o] = T(static_cast<compute_t<T>>(r));
          if (o == out_size - 1) plane_ptr = px + (plane + 1) * in_size;
        });
  });
  if (!ok) return ctx.error("LpPool does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_lp_pool(InferContext& ctx) {
  std::vector<int64_t> kernel = ctx.node().attr_ints("kernel_shape");
  OT_RETURN_IF_ERROR(nn::infer_conv_like(ctx, std::nullopt, kernel, ctx.node().attr_int("ceil_mode", 0) != 0));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LpPool, "", "LpPool", (std::vector<int>{1, 2, 11, 18, 22}), eval_lp_pool);
ONNXTRIM_REGISTER_INFER(LpPool, "", "LpPool", infer_lp_pool);
ONNXTRIM_REGISTER_TYPES(LpPool, "", "LpPool", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
