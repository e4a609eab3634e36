// SequenceConstruct: a sequence of the input tensors.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"
#include "ops/sequence/sequence_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_sequence_construct(KernelContext& ctx) {
  std::vector<RuntimeValue> e;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.error("SequenceConstruct inputs cannot be empty");
    e.push_back(*ctx.input_value(i));
  }
  ctx.set_output_value(0, RuntimeValue::sequence(std::move(e)));
  return Status::ok();
}

// ---- shape inference
Status infer_sequence_construct(InferContext& ctx) {
  TypeInfo e = ctx.input(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const TypeInfo& t = ctx.input(i);
    if (!e.shape || !t.shape || e.shape->size() != t.shape->size()) e.shape.reset();
    else
      for (size_t k = 0; k < e.shape->size(); ++k)
        if (!((*e.shape)[k] == (*t.shape)[k])) (*e.shape)[k] = Expr::fresh();
  }
  ctx.output(0) = sequence::sequence_of(e);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceConstruct, "", "SequenceConstruct", (std::vector<int>{11}), eval_sequence_construct);
ONNXTRIM_REGISTER_INFER(SequenceConstruct, "", "SequenceConstruct", infer_sequence_construct);
ONNXTRIM_REGISTER_TYPES(SequenceConstruct, "", "SequenceConstruct", "T...",
                        {{"T", kIntTypes | kComplexTypes |
                                   type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                              ir::DataType::kFloat16, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
