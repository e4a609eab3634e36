// SequenceErase: removes the tensor at a position (the last by default).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"
#include "ops/sequence/sequence_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_sequence_erase(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence()) return ctx.error("SequenceErase needs a sequence");
  RuntimeValue* own = ctx.take_input_value(0);
  RuntimeValue out = own ? std::move(*own) : *s;
  auto p = sequence::position(ctx, 1, static_cast<int64_t>(out.elems.size()), false);
  if (!p) return ctx.error("SequenceErase position out of range");
  out.elems.erase(out.elems.begin() + *p);
  ctx.set_output_value(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_sequence_erase(InferContext& ctx) {
  ctx.output(0) = ctx.input(0);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceErase, "", "SequenceErase", (std::vector<int>{11}), eval_sequence_erase);
ONNXTRIM_REGISTER_INFER(SequenceErase, "", "SequenceErase", infer_sequence_erase);
ONNXTRIM_REGISTER_TYPES(SequenceErase, "", "SequenceErase", "- I",
                        {{"I", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
