// The sequence type's element ops, which share its helpers (sequence_util.h):
// - SequenceConstruct: a sequence of the input tensors;
// - SequenceEmpty: an empty sequence of the given element type (float by default);
// - SequenceInsert: inserts a tensor at a position (the end by default);
// - SequenceAt: the tensor at a (possibly negative) position;
// - SequenceErase: removes the tensor at a position (the last by default);
// - SequenceLength: the number of tensors, as an int64 scalar.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/sequence/sequence_util.h"
#include "ops/tensor/tensor_util.h"

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

Status eval_sequence_empty(KernelContext& ctx) {
  ir::Type et = ir::Type::tensor_unranked(static_cast<DataType>(ctx.node().attr_int("dtype", 1)));
  ctx.set_output_value(0, RuntimeValue::sequence({}, et));
  return Status::ok();
}

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

Status eval_sequence_at(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence() || !ctx.has_input(1)) return ctx.error("SequenceAt needs a sequence and a position");
  auto p = sequence::position(ctx, 1, static_cast<int64_t>(s->elems.size()), false);
  if (!p) return ctx.error("SequenceAt position out of range");
  ctx.set_output_value(0, s->elems[static_cast<size_t>(*p)]);
  return Status::ok();
}

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

Status eval_sequence_length(KernelContext& ctx) {
  const RuntimeValue* s = ctx.input_value(0);
  if (!s || !s->is_sequence()) return ctx.error("SequenceLength needs a sequence");
  ctx.set_output(0, Tensor::scalar_i64(static_cast<int64_t>(s->elems.size())));
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

Status infer_sequence_empty(InferContext& ctx) {
  ctx.output(0) =
      sequence::sequence_of(TypeInfo::tensor(static_cast<DataType>(ctx.node().attr_int("dtype", 1)), std::nullopt));
  return Status::ok();
}

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

Status infer_sequence_erase(InferContext& ctx) {
  ctx.output(0) = ctx.input(0);
  return Status::ok();
}

Status infer_sequence_length(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(DataType::kInt64, SymShape{});
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
// A row: an op of opset 11; `types` gives the sets of the type variables `signature` names.
OpRegistration sequence_row(const char* op, EvalFn eval, InferFn infer, std::string signature = "",
                            std::vector<std::pair<std::string, uint64_t>> types = {}) {
  return {.op_type = op,
          .versions = {11},
          .eval = eval,
          .infer = infer,
          .signature = std::move(signature),
          .types = std::move(types)};
}
const uint64_t kPositionTypes = type_bits({ir::DataType::kInt32, ir::DataType::kInt64});
const OpRegistration kSequenceOps[] = {
    sequence_row("SequenceConstruct", eval_sequence_construct, infer_sequence_construct, "T...",
                 {{"T", kAllTensorTypesButBFloat16}}),
    sequence_row("SequenceEmpty", eval_sequence_empty, infer_sequence_empty),
    sequence_row("SequenceInsert", eval_sequence_insert, infer_sequence_insert, "- T I",
                 {{"T", kAllTensorTypesButBFloat16}, {"I", kPositionTypes}}),
    sequence_row("SequenceAt", eval_sequence_at, infer_sequence_at, "- I", {{"I", kPositionTypes}}),
    sequence_row("SequenceErase", eval_sequence_erase, infer_sequence_erase, "- I", {{"I", kPositionTypes}}),
    sequence_row("SequenceLength", eval_sequence_length, infer_sequence_length),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(SequenceOps, kSequenceOps);

}  // namespace onnxtrim::ops
