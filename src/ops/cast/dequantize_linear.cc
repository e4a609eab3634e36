// DequantizeLinear: y = (x - zero_point) * scale, per tensor, per axis or per block
// (block_size from opset 21); the output has the scale's type (or output_dtype).
#include "ops/cast/cast_util.h"
#include "ops/cast/quantize_util.h"
#include "ops/infer.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_dequantize_linear(KernelContext& ctx) {
  quant::Operands q;
  OT_RETURN_IF_ERROR(quant::read_operands(ctx, &q));
  if (q.zero.size() != q.scale.size()) return ctx.error("DequantizeLinear: zero point and scale differ in shape");
  const Tensor& x = ctx.input(0);
  Tensor d(DataType::kDouble, x.dims());
  for (size_t i = 0; i < q.x.size(); ++i) {
    size_t k = static_cast<size_t>(q.index[i]);
    d.mutable_data<double>()[i] = (q.x[i] - q.zero[k]) * q.scale[k];
  }
  std::string why;
  int64_t odt = ctx.node().attr_int("output_dtype", 0);
  Tensor out;
  if (!cast::convert(d, odt ? static_cast<DataType>(odt) : ctx.input(1).dtype(), true, &out, &why))
    return ctx.unsupported(why);
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_dequantize_linear(InferContext& ctx) {
  propagate_same(ctx);
  int64_t odt = ctx.node().attr_int("output_dtype", 0);
  ctx.output(0).elem = odt ? static_cast<DataType>(odt) : ctx.input(1).elem;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(DequantizeLinear, "", "DequantizeLinear", (std::vector<int>{10, 13, 19, 21, 23, 24, 25}),
                     eval_dequantize_linear);
ONNXTRIM_REGISTER_INFER(DequantizeLinear, "", "DequantizeLinear", infer_dequantize_linear);
ONNXTRIM_REGISTER_TYPES(DequantizeLinear, "", "DequantizeLinear", "T1 T2 T1",
                        {{"T1", quant::kQuantizedTypes | type_bits({ir::DataType::kInt32})},
                         {"T2", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16,
                                           ir::DataType::kFloat8E8M0})}});

}  // namespace onnxtrim::ops
