// AveragePool: windowed mean, padding counted or not (count_include_pad).
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_average_pool(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("AveragePool needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 3) return ctx.error("AveragePool input must have rank >= 3");
  const ir::Node& node = ctx.node();
  nn::Geometry g;
  g.in.assign(x.dims().begin() + 2, x.dims().end());
  g.kernel = node.attr_ints("kernel_shape");
  if (g.kernel.empty()) return ctx.error("AveragePool requires kernel_shape");
  bool ceil_mode = ctx.opset() >= 10 && node.attr_int("ceil_mode", 0) != 0;
  std::string err = nn::compute_geometry(node, &g, ceil_mode);
  if (!err.empty()) return ctx.error("AveragePool: " + err);
  bool include_pad = ctx.opset() >= 7 && node.attr_int("count_include_pad", 0) != 0;
  int64_t N = x.dims()[0], C = x.dims()[1];
  Dims out_dims{N, C};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out);
  Tensor y(x.dtype(), out_dims);
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT = std::conditional_t<std::is_same_v<T, double>, double, float>;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    CT sum = 0;
    int64_t count = 0;
    const T* plane_ptr = px;
    nn::for_each_window(
        N * C, g,
        [&] {
          sum = 0;
          count = 0;
        },
        [&](int64_t off, const std::vector<int64_t>&) {
          sum += static_cast<CT>(plane_ptr[off]);
          ++count;
        },
        [&](int64_t plane, int64_t o, int64_t padded) {
          int64_t denom = include_pad ? padded : count;
          py[plane * out_size + o] = T(denom > 0 ? sum / static_cast<CT>(denom) : CT(0));
          if (o == out_size - 1) plane_ptr = px + (plane + 1) * in_size;
        });
  });
  if (!ok) return ctx.error("AveragePool does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_average_pool(InferContext& ctx) {
  std::vector<int64_t> kernel = ctx.node().attr_ints("kernel_shape");
  OT_RETURN_IF_ERROR(nn::infer_conv_like(ctx, std::nullopt, kernel, ctx.node().attr_int("ceil_mode", 0) != 0));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(AveragePool, "", "AveragePool", (std::vector<int>{1, 7, 10, 11, 19, 22}), eval_average_pool);
ONNXTRIM_REGISTER_INFER(AveragePool, "", "AveragePool", infer_average_pool);
ONNXTRIM_REGISTER_TYPES(AveragePool, "", "AveragePool", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
