// ConcatFromSequence: concatenates (or, with new_axis, stacks) the tensors of a sequence.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_concat_from_sequence(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence() || s->elems.empty()) return ctx.error("ConcatFromSequence needs a non-empty sequence");
  bool new_axis = ctx.node().attr_int("new_axis", 0) != 0;
  const Tensor& first = s->elems[0].tensor;
  int64_t r = first.rank() + (new_axis ? 1 : 0);
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), r);
  if (!axis) return ctx.error("ConcatFromSequence axis out of range");
  std::vector<Tensor> parts;
  for (const auto& e : s->elems) {
    Dims d = e.tensor.dims();
    if (new_axis) d.insert(d.begin() + *axis, 1);
    parts.push_back(tensor::reshaped(e.tensor, d));
  }
  Dims out = parts[0].dims();
  out[static_cast<size_t>(*axis)] = 0;
  for (const auto& p : parts) out[static_cast<size_t>(*axis)] += p.dims()[static_cast<size_t>(*axis)];
  Tensor y(first.dtype(), out);
  int64_t outer = numel_of(Dims(out.begin(), out.begin() + *axis));
  int64_t row = numel_of(Dims(out.begin() + *axis, out.end()));
  for (int64_t o = 0; o < outer; ++o) {
    int64_t pos = 0;
    for (const auto& p : parts) {
      int64_t chunk = numel_of(Dims(p.dims().begin() + *axis, p.dims().end()));
      tensor::copy_elements(p, o * chunk, y, o * row + pos, chunk);
      pos += chunk;
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_concat_from_sequence(InferContext& ctx) {
  const TypeInfo& s = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(s.inner ? s.inner->elem : DataType::kUndefined, std::nullopt);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ConcatFromSequence, "", "ConcatFromSequence", (std::vector<int>{11}), eval_concat_from_sequence);
ONNXTRIM_REGISTER_INFER(ConcatFromSequence, "", "ConcatFromSequence", infer_concat_from_sequence);

}  // namespace onnxtrim::ops
