// DequantizeLinear: y = (x - zero_point) * scale, per tensor, per axis or per block
// (block_size from opset 21); the output has the scale's type (or output_dtype).
#include "ops/cast/cast_util.h"
#include "ops/cast/quantize_util.h"
#include "ops/infer.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_dequantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& s = ctx.input(1);
  std::string why;
  auto idx = quant::scale_index(x.dims(), s.dims(), ctx.node().attr_int("axis", 1),
                                ctx.node().attr_int("block_size", 0), &why);
  if (idx.size() != static_cast<size_t>(x.numel())) return ctx.error("DequantizeLinear: " + why);
  std::vector<double> xv = quant::as_doubles(x), sv = quant::as_doubles(s);
  std::vector<double> zv(sv.size(), 0.0);
  if (ctx.has_input(2)) zv = quant::as_doubles(ctx.input(2));
  if (zv.size() != sv.size()) return ctx.error("DequantizeLinear: zero point and scale differ in shape");
  Tensor d(DataType::kDouble, x.dims());
  for (size_t i = 0; i < xv.size(); ++i) {
    size_t k = static_cast<size_t>(idx[i]);
    d.mutable_data<double>()[i] = (xv[i] - zv[k]) * sv[k];
  }
  int64_t odt = ctx.node().attr_int("output_dtype", 0);
  Tensor out;
  if (!cast::convert(d, odt ? static_cast<DataType>(odt) : s.dtype(), true, &out, &why)) return ctx.unsupported(why);
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
ONNXTRIM_REGISTER_TYPES(
    DequantizeLinear, "", "DequantizeLinear", "T1 T2 T1",
    {{"T1",
      kFloat8Types | type_bits({ir::DataType::kFloat4E2M1, ir::DataType::kInt16, ir::DataType::kInt2,
                                ir::DataType::kInt32, ir::DataType::kInt4, ir::DataType::kInt8, ir::DataType::kUint16,
                                ir::DataType::kUint2, ir::DataType::kUint4, ir::DataType::kUint8})},
     {"T2",
      type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16, ir::DataType::kFloat8E8M0})}});

}  // namespace onnxtrim::ops
