// DynamicQuantizeLinear: uint8 quantization with scale and zero point computed from the data.
//   scale = (max(0, max x) - min(0, min x)) / 255
//   zp = saturate(round(-min(0, min x) / scale)),  y = saturate(round(x / scale) + zp)
// round is half-to-even; saturate clamps to [0, 255]. An all-zero x gives scale 0, zp 0, y 0.
#include <algorithm>
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

double saturate_u8(double v) { return std::clamp(v, 0.0, 255.0); }

// ---- evaluate
Status eval_dynamic_quantize_linear(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("DynamicQuantizeLinear needs an input");
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat)
    return ctx.error("DynamicQuantizeLinear takes float, not " + std::string(ir::dtype_name(x.dtype())));
  const float* px = x.data<float>();
  // The range always includes 0 so that 0 is exactly representable.
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < x.numel(); ++i) {
    lo = std::min(lo, px[i]);
    hi = std::max(hi, px[i]);
  }
  float scale = (hi - lo) / 255.0f;
  double zp = scale == 0.0f ? 0.0 : saturate_u8(std::nearbyint(-static_cast<double>(lo) / scale));
  Tensor y(DataType::kUint8, x.dims());
  uint8_t* py = y.numel() ? y.mutable_data<uint8_t>() : nullptr;
  for (int64_t i = 0; i < x.numel(); ++i) {
    double q = scale == 0.0f ? 0.0 : std::nearbyint(static_cast<double>(px[i] / scale));
    py[i] = static_cast<uint8_t>(saturate_u8(q + zp));
  }
  ctx.set_output(0, std::move(y));
  if (ctx.wants_output(1)) ctx.set_output(1, Tensor::scalar_f32(scale));
  if (ctx.wants_output(2)) ctx.set_output(2, Tensor::from_vector<uint8_t>(DataType::kUint8, {}, {static_cast<uint8_t>(zp)}));
  return Status::ok();
}

// ---- shape inference
Status infer_dynamic_quantize_linear(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = DataType::kUint8;
  ctx.output(0).values.reset();
  if (ctx.has_output(1)) ctx.output(1) = TypeInfo::tensor(DataType::kFloat, SymShape{});
  if (ctx.has_output(2)) ctx.output(2) = TypeInfo::tensor(DataType::kUint8, SymShape{});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(DynamicQuantizeLinear, "", "DynamicQuantizeLinear", (std::vector<int>{11}), eval_dynamic_quantize_linear);
ONNXTRIM_REGISTER_INFER(DynamicQuantizeLinear, "", "DynamicQuantizeLinear", infer_dynamic_quantize_linear);
ONNXTRIM_REGISTER_TYPES(DynamicQuantizeLinear, "", "DynamicQuantizeLinear", "T1",
                        {{"T1", type_bits({ir::DataType::kFloat})}});

}  // namespace onnxtrim::ops
