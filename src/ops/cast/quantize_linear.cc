// QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point) in the zero point's type
// (or output_dtype; uint8 by default), per tensor, per axis or per block. float8 outputs round
// and saturate as Cast does.
#include <cmath>
#include <limits>

#include "ops/cast/cast_util.h"
#include "ops/cast/quantize_util.h"
#include "ops/infer.h"

namespace onnxtrim::ops {
namespace {

DataType out_type(const ir::Node& n, DataType zp) {
  int64_t odt = n.attr_int("output_dtype", 0);
  if (odt) return static_cast<DataType>(odt);
  return zp != DataType::kUndefined ? zp : DataType::kUint8;
}

// ---- evaluate
Status eval_quantize_linear(KernelContext& ctx) {
  quant::Operands q;
  OT_RETURN_IF_ERROR(quant::read_operands(ctx, &q));
  const Tensor& x = ctx.input(0);
  DataType to = out_type(ctx.node(), ctx.has_input(2) ? ctx.input(2).dtype() : DataType::kUndefined);
  bool is_int = ir::dtype_is_integer(to);
  double lo = 0, hi = 0;
  if (is_int) {
    int bits = ir::dtype_bits(to);
    bool sgn = ir::dtype_is_signed(to);
    lo = sgn ? -std::ldexp(1.0, bits - 1) : 0.0;
    hi = sgn ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  }
  Tensor d(DataType::kDouble, x.dims());
  for (size_t i = 0; i < q.x.size(); ++i) {
    size_t k = static_cast<size_t>(q.index[i]);
    // The division happens in the input's precision (float for float, float16 and bfloat16
    // inputs), as the runtimes and the reference do: it decides ties of the rounding.
    double v = x.dtype() == DataType::kDouble
                   ? q.x[i] / q.scale[k]
                   : static_cast<double>(static_cast<float>(q.x[i]) / static_cast<float>(q.scale[k]));
    if (is_int) {
      v = std::nearbyint(v) + q.zero[k];
      v = std::min(std::max(v, lo), hi);
    } else {
      v = v + q.zero[k];  // float8: rounding and saturation happen in the conversion
    }
    d.mutable_data<double>()[i] = v;
  }
  Tensor out;
  std::string why;
  if (!cast::convert(d, to, ctx.node().attr_int("saturate", 1) != 0, &out, &why)) return ctx.unsupported(why);
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_quantize_linear(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = out_type(ctx.node(), ctx.has_input(2) ? ctx.input(2).elem : DataType::kUndefined);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(QuantizeLinear, "", "QuantizeLinear", (std::vector<int>{10, 13, 19, 21, 23, 24, 25}),
                     eval_quantize_linear);
ONNXTRIM_REGISTER_INFER(QuantizeLinear, "", "QuantizeLinear", infer_quantize_linear);
ONNXTRIM_REGISTER_TYPES(QuantizeLinear, "", "QuantizeLinear", "T1 T2 T3",
                        {{"T1", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16,
                                           ir::DataType::kInt32})},
                         {"T2", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16,
                                           ir::DataType::kFloat8E8M0, ir::DataType::kInt32})},
                         {"T3", quant::kQuantizedTypes}});

}  // namespace onnxtrim::ops
