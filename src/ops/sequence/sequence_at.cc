// SequenceAt: the tensor at a (possibly negative) position.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_sequence_at(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence() || !ctx.has_input(1)) return ctx.error("SequenceAt needs a sequence and a position");
  auto n = static_cast<int64_t>(s->elems.size());
  int64_t p = to_int64_vector(ctx.input(1)).at(0);
  if (p < 0) p += n;
  if (p < 0 || p >= n) return ctx.error("SequenceAt position out of range");
  ctx.set_output_value(0, s->elems[static_cast<size_t>(p)]);
  return Status::ok();
}

// ---- shape inference
// The element type of a sequence holds for every element; a dim that mentions an unknown (the
// elements' sizes differ there) is an unknown of this value's own, never one shared with the
// values other SequenceAt nodes read.
Status infer_sequence_at(InferContext& ctx) {
  if (!ctx.input(0).inner) return Status::ok();
  ctx.output(0) = *ctx.input(0).inner;
  if (ctx.output(0).shape)
    for (Expr& e : *ctx.output(0).shape) {
      bool has_fresh = false;
      e.symbols(&has_fresh);
      if (has_fresh) e = ctx.fresh();
    }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceAt, "", "SequenceAt", (std::vector<int>{11}), eval_sequence_at);
ONNXTRIM_REGISTER_INFER(SequenceAt, "", "SequenceAt", infer_sequence_at);
ONNXTRIM_REGISTER_TYPES(SequenceAt, "", "SequenceAt", "- I",
                        {{"I", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
