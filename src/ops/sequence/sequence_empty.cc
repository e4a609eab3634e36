// SequenceEmpty: an empty sequence of the given element type (float by default).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"
#include "ops/sequence/sequence_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_sequence_empty(KernelContext& ctx) {
  ir::Type et = ir::Type::tensor_unranked(static_cast<DataType>(ctx.node().attr_int("dtype", 1)));
  ctx.set_output_value(0, RuntimeValue::sequence({}, et));
  return Status::ok();
}

// ---- shape inference
Status infer_sequence_empty(InferContext& ctx) {
  ctx.output(0) =
      sequence::sequence_of(TypeInfo::tensor(static_cast<DataType>(ctx.node().attr_int("dtype", 1)), std::nullopt));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceEmpty, "", "SequenceEmpty", (std::vector<int>{11}), eval_sequence_empty);
ONNXTRIM_REGISTER_INFER(SequenceEmpty, "", "SequenceEmpty", infer_sequence_empty);

}  // namespace onnxtrim::ops
