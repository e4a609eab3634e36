// ReverseSequence (10): for each batch entry b, reverses the first sequence_lens[b] elements
// along time_axis; batch_axis and time_axis are 0 and 1 (either way round).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_reverse_sequence(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("ReverseSequence needs input and sequence_lens");
  const Tensor& x = ctx.input(0);
  int64_t batch_axis = ctx.node().attr_int("batch_axis", 1), time_axis = ctx.node().attr_int("time_axis", 0);
  if (x.rank() < 2 || !((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    return ctx.error("ReverseSequence needs rank >= 2 with batch_axis and time_axis 0 and 1");
  std::vector<int64_t> lens = to_int64_vector(ctx.input(1));
  int64_t B = x.dims()[static_cast<size_t>(batch_axis)], T = x.dims()[static_cast<size_t>(time_axis)];
  if (static_cast<int64_t>(lens.size()) != B)
    return ctx.error("ReverseSequence sequence_lens must have one entry per batch");
  int64_t inner = numel_of(Dims(x.dims().begin() + 2, x.dims().end()));
  Tensor y = x;
  y.mutable_bytes();
  for (int64_t b = 0; b < B; ++b) {
    int64_t len = lens[static_cast<size_t>(b)];
    if (len < 0 || len > T) return ctx.error("ReverseSequence length " + std::to_string(len) + " is out of range");
    for (int64_t t = 0; t < len; ++t) {
      int64_t src_t = len - 1 - t;
      auto off = [&](int64_t tt) { return (batch_axis == 0 ? b * T + tt : tt * B + b) * inner; };
      tensor::copy_elements(x, off(src_t), y, off(t), inner);
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ReverseSequence, "", "ReverseSequence", (std::vector<int>{10}), eval_reverse_sequence);
ONNXTRIM_REGISTER_INFER(ReverseSequence, "", "ReverseSequence", infer_same);
ONNXTRIM_REGISTER_TYPES(ReverseSequence, "", "ReverseSequence", "T sequence_lens",
                        {{"T", kAllTensorTypesButBFloat16}, {"sequence_lens", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
