// SequenceLength: the number of tensors, as an int64 scalar.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_sequence_length(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence()) return ctx.error("SequenceLength needs a sequence");
  ctx.set_output(0, Tensor::scalar_i64(static_cast<int64_t>(s->elems.size())));
  return Status::ok();
}

// ---- shape inference
Status infer_sequence_length(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(DataType::kInt64, SymShape{});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceLength, "", "SequenceLength", (std::vector<int>{11}), eval_sequence_length);
ONNXTRIM_REGISTER_INFER(SequenceLength, "", "SequenceLength", infer_sequence_length);

}  // namespace onnxtrim::ops
