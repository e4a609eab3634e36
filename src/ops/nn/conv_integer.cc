// ConvInteger: 8-bit integer convolution with zero points, int32 result (exact; im2col and a
// float GEMM proven exact, nn::conv_integer).
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_conv_integer(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("ConvInteger needs inputs x and w");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  if (!nn::is_8bit(x.dtype()) || !nn::is_8bit(w.dtype())) return ctx.error("ConvInteger inputs must be int8 or uint8");
  int64_t group;
  OT_RETURN_IF_ERROR(nn::integer_conv_channels(ctx, x, w, &group));
  int64_t M = w.dims()[0];
  std::vector<int32_t> zx, zw;
  const Tensor* xzp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* wzp = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if ((xzp && xzp->dtype() != x.dtype()) || (wzp && wzp->dtype() != w.dtype()))
    return ctx.error("ConvInteger zero points must have the type of their input");
  if (!nn::per_axis_int(xzp, 1, &zx)) return ctx.error("ConvInteger x_zero_point must be a scalar");
  if (!nn::per_axis_int(wzp, M, &zw)) return ctx.error("ConvInteger w_zero_point must be a scalar or have M elements");
  nn::Geometry g;
  OT_RETURN_IF_ERROR(nn::conv_geometry(ctx, x, w, "w", &g));
  std::vector<int32_t> y = nn::conv_integer(x, zx[0], w, zw, g, group);
  ctx.set_output(0, make_tensor<int32_t>(g.output_dims(x.dims()[0], M), y));
  return Status::ok();
}

// ---- shape inference
Status infer_conv_integer(InferContext& ctx) { return nn::infer_conv_by_weight(ctx, 1, DataType::kInt32); }

// ---- cost
// Each output element sums over one filter: the weight's elements per output channel.
double cost_conv_integer(const ir::Node& n, const CostContext& c) {
  return c.numel(n.output(0)) * c.filter(n.input(1));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ConvInteger, "", "ConvInteger", (std::vector<int>{10}), eval_conv_integer);
ONNXTRIM_REGISTER_INFER(ConvInteger, "", "ConvInteger", infer_conv_integer);
ONNXTRIM_REGISTER_TYPES(ConvInteger, "", "ConvInteger", "T1 T2 T1 T2",
                        {{"T1", nn::k8BitTypes}, {"T2", nn::k8BitTypes}});
ONNXTRIM_REGISTER_COST(ConvInteger, "", "ConvInteger", cost_conv_integer);

}  // namespace onnxtrim::ops
