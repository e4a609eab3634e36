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

// ---- evaluate
// Elementwise in float, in loops the compiler vectorizes. round(x / scale) is computed as
// (q + 1.5 * 2^23) - 1.5 * 2^23, which rounds half to even exactly for |q| <= 2^22; q is first
// clamped to [-1024, 1024], which changes no result (anything past +-512 saturates whatever
// the zero point). NaN becomes 0.
Status eval_dynamic_quantize_linear(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("DynamicQuantizeLinear needs an input");
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat)
    return ctx.error("DynamicQuantizeLinear takes float, not " + std::string(ir::dtype_name(x.dtype())));
  const float* px = x.data<float>();
  int64_t n = x.numel();
  // The range always includes 0 so that 0 is exactly representable (NaN is ignored).
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    lo = px[i] < lo ? px[i] : lo;
    hi = px[i] > hi ? px[i] : hi;
  }
  float scale = (hi - lo) / 255.0f;
  double zp = scale == 0.0f ? 0.0 : std::clamp(std::nearbyint(-static_cast<double>(lo) / scale), 0.0, 255.0);
  Tensor y(DataType::kUint8, x.dims());
  uint8_t* py = n ? y.mutable_data<uint8_t>() : nullptr;
  if (scale == 0.0f) {
    std::fill(py, py + n, uint8_t{0});
  } else {
    const float magic = 12582912.0f;  // 1.5 * 2^23
    const auto z = static_cast<float>(zp);
    for (int64_t i = 0; i < n; ++i) {
      float q = px[i] / scale;
      q = q < -1024.0f ? -1024.0f : (q > 1024.0f ? 1024.0f : q);
      q = (q + magic) - magic + z;
      q = q >= 0.0f ? (q > 255.0f ? 255.0f : q) : 0.0f;  // NaN fails q >= 0
      py[i] = static_cast<uint8_t>(q);
    }
  }
  ctx.set_output(0, std::move(y));
  if (ctx.wants_output(1)) ctx.set_output(1, Tensor::scalar_f32(scale));
  if (ctx.wants_output(2))
    ctx.set_output(2, Tensor::from_vector<uint8_t>(DataType::kUint8, {}, {static_cast<uint8_t>(zp)}));
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
ONNXTRIM_REGISTER_OP(DynamicQuantizeLinear, "", "DynamicQuantizeLinear", (std::vector<int>{11}),
                     eval_dynamic_quantize_linear);
ONNXTRIM_REGISTER_INFER(DynamicQuantizeLinear, "", "DynamicQuantizeLinear", infer_dynamic_quantize_linear);
ONNXTRIM_REGISTER_TYPES(DynamicQuantizeLinear, "", "DynamicQuantizeLinear", "T1",
                        {{"T1", type_bits({ir::DataType::kFloat})}});

}  // namespace onnxtrim::ops
