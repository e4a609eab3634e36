// TensorScatter (24): writes `update` into a copy of `past_cache` along the sequence axis
// (default -2, never the batch axis 0), starting per batch entry at write_indices[b] (0 when
// absent); with mode circular the position wraps modulo the cache length.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_tensor_scatter(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("TensorScatter needs past_cache and update");
  const Tensor& past = ctx.input(0);
  const Tensor& upd = ctx.input(1);
  auto axis = normalize_axis(ctx.node().attr_int("axis", -2), past.rank());
  if (!axis || *axis == 0) return ctx.error("TensorScatter axis must be a non-batch axis");
  if (upd.rank() != past.rank() || upd.dtype() != past.dtype())
    return ctx.error("TensorScatter update must match past_cache in rank and type");
  for (int64_t a = 0; a < past.rank(); ++a)
    if (a != *axis && upd.dims()[a] != past.dims()[a])
      return ctx.error("TensorScatter update differs from past_cache outside the sequence axis");
  std::string mode = ctx.node().attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") return ctx.error("TensorScatter mode must be linear or circular");
  int64_t B = past.dims()[0], maxlen = past.dims()[static_cast<size_t>(*axis)],
          len = upd.dims()[static_cast<size_t>(*axis)];
  std::vector<int64_t> w(static_cast<size_t>(B), 0);
  if (ctx.has_input(2)) {
    w = to_int64_vector(ctx.input(2));
    if (static_cast<int64_t>(w.size()) != B)
      return ctx.error("TensorScatter write_indices must have one entry per batch");
  }
  Tensor out = past;
  out.mutable_bytes();
  int64_t prefix = numel_of(Dims(past.dims().begin(), past.dims().begin() + *axis));
  int64_t per_batch = prefix / std::max<int64_t>(B, 1);
  int64_t inner = numel_of(Dims(past.dims().begin() + *axis + 1, past.dims().end()));
  for (int64_t p = 0; p < prefix; ++p) {
    int64_t b = per_batch ? p / per_batch : 0;
    for (int64_t s = 0; s < len; ++s) {
      int64_t pos = w[static_cast<size_t>(b)] + s;
      if (mode == "circular") pos = ((pos % maxlen) + maxlen) % maxlen;
      if (pos < 0 || pos >= maxlen)
        return ctx.error("TensorScatter writes past the cache (index " + std::to_string(pos) + ")");
      tensor::copy_elements(upd, (p * len + s) * inner, out, (p * maxlen + pos) * inner, inner);
    }
  }
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(TensorScatter, "", "TensorScatter", (std::vector<int>{24}), eval_tensor_scatter);
ONNXTRIM_REGISTER_INFER(TensorScatter, "", "TensorScatter", infer_same);
ONNXTRIM_REGISTER_TYPES(TensorScatter, "", "TensorScatter", "T T write_indices",
                        {{"T", kNumericTypes | kFloat8Types | kComplexTypes |
                                   type_bits({ir::DataType::kBool, ir::DataType::kFloat4E2M1, ir::DataType::kFloat8E8M0,
                                              ir::DataType::kInt4, ir::DataType::kString, ir::DataType::kUint4})},
                         {"write_indices", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
