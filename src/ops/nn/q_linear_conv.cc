// QLinearConv: quantized convolution, requantized to y_scale / y_zero_point.
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_q_linear_conv(KernelContext& ctx) {
  for (size_t i = 0; i < 8; ++i)
    if (!ctx.has_input(i))
      return ctx.error(
          "QLinearConv needs inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(3);
  const Tensor& yzp_t = ctx.input(7);
  if (!nn::is_8bit(x.dtype()) || !nn::is_8bit(w.dtype()) || !nn::is_8bit(yzp_t.dtype()))
    return ctx.error("QLinearConv operands must be int8 or uint8");
  int64_t group;
  OT_RETURN_IF_ERROR(nn::integer_conv_channels(ctx, x, w, &group));
  int64_t M = w.dims()[0];
  std::vector<int32_t> zx, zw, zy;
  std::vector<float> sx, sw, sy;
  if (!nn::per_axis_int(&ctx.input(2), 1, &zx) || !nn::per_axis_float(ctx.input(1), 1, &sx))
    return ctx.error("QLinearConv x_scale and x_zero_point must be scalars");
  if (!nn::per_axis_int(&ctx.input(5), M, &zw) || !nn::per_axis_float(ctx.input(4), M, &sw))
    return ctx.error("QLinearConv w_scale / w_zero_point must be scalars or have M elements");
  if (!nn::per_axis_int(&yzp_t, 1, &zy) || !nn::per_axis_float(ctx.input(6), 1, &sy))
    return ctx.error("QLinearConv y_scale and y_zero_point must be scalars");
  std::vector<int32_t> bias(static_cast<size_t>(M), 0);
  if (ctx.has_input(8)) {
    const Tensor& b = ctx.input(8);
    if (b.dtype() != DataType::kInt32 || b.rank() != 1 || b.dims()[0] != M)
      return ctx.error("QLinearConv B must be a 1-D int32 tensor of size M");
    bias = b.to_vector<int32_t>();
  }
  nn::Geometry g;
  OT_RETURN_IF_ERROR(nn::conv_geometry(ctx, x, w, "w", &g));
  std::vector<int32_t> acc = nn::conv_integer(x, zx[0], w, zw, g, group);
  Tensor y(yzp_t.dtype(), g.output_dims(x.dims()[0], M));
  int64_t out_size = numel_of(g.out);
  std::vector<float> scale(static_cast<size_t>(M));
  for (size_t m = 0; m < scale.size(); ++m) scale[m] = sx[0] * sw[m] / sy[0];
  for (size_t i = 0; i < acc.size(); ++i) {
    auto m = static_cast<size_t>((static_cast<int64_t>(i) / std::max<int64_t>(out_size, 1)) % M);
    float f = scale[m];
    int64_t q = nn::saturate_round(static_cast<double>(nn::wrap_add(acc[i], bias[m])) * static_cast<double>(f), zy[0],
                                   y.dtype());
    if (y.dtype() == DataType::kUint8) y.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(q);
    else y.mutable_data<int8_t>()[i] = static_cast<int8_t>(q);
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_q_linear_conv(InferContext& ctx) { return nn::infer_conv_by_weight(ctx, 3, ctx.input(7).elem); }

// ---- cost
// Each output element sums over one filter of the weight (input 3).
double cost_q_linear_conv(const ir::Node& n, const CostContext& c) {
  return c.numel(n.output(0)) * c.filter(n.input(3));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(QLinearConv, "", "QLinearConv", (std::vector<int>{10}), eval_q_linear_conv);
ONNXTRIM_REGISTER_INFER(QLinearConv, "", "QLinearConv", infer_q_linear_conv);
ONNXTRIM_REGISTER_TYPES(QLinearConv, "", "QLinearConv", "T1 x_scale T1 T2 w_scale T2 y_scale T3 T4",
                        {{"T1", nn::k8BitTypes},
                         {"x_scale", type_bits({ir::DataType::kFloat})},
                         {"T2", nn::k8BitTypes},
                         {"w_scale", type_bits({ir::DataType::kFloat})},
                         {"y_scale", type_bits({ir::DataType::kFloat})},
                         {"T3", nn::k8BitTypes},
                         {"T4", type_bits({ir::DataType::kInt32})}});
ONNXTRIM_REGISTER_COST(QLinearConv, "", "QLinearConv", cost_q_linear_conv);

}  // namespace onnxtrim::ops
