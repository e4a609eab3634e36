// SequenceInsert: inserts a tensor at a position (the end by default).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"
#include "ops/sequence/sequence_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_sequence_insert(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence() || !ctx.has_input(1)) return ctx.error("SequenceInsert needs a sequence and a tensor");
  RuntimeValue* own = ctx.take_input_value(0);
  RuntimeValue out = own ? std::move(*own) : *s;
  auto p = sequence::position(ctx, 2, static_cast<int64_t>(out.elems.size()), true);
  if (!p) return ctx.error("SequenceInsert position out of range");
  out.elems.insert(out.elems.begin() + *p, *ctx.input_value(1));
  ctx.set_output_value(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_sequence_insert(InferContext& ctx) {
  ctx.output(0) = sequence::sequence_of(ctx.input(1));
  if (ctx.input(0).inner && ctx.input(0).inner->shape && ctx.input(1).shape) {
    const SymShape& a = *ctx.input(0).inner->shape;
    SymShape& b = *ctx.output(0).inner->shape;
    if (a.size() != b.size()) ctx.output(0).inner->shape.reset();
    else
      for (size_t k = 0; k < a.size(); ++k)
        if (!(a[k] == b[k])) b[k] = Expr::fresh();
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceInsert, "", "SequenceInsert", (std::vector<int>{11}), eval_sequence_insert);
ONNXTRIM_REGISTER_INFER(SequenceInsert, "", "SequenceInsert", infer_sequence_insert);
ONNXTRIM_REGISTER_TYPES(SequenceInsert, "", "SequenceInsert", "- T I",
                        {{"T", kIntTypes | kComplexTypes |
                                   type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                              ir::DataType::kFloat16, ir::DataType::kString})},
                         {"I", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
