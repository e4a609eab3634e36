// The optional type's three ops, which share its type constraint:
// - Optional: an optional holding the input, or empty (of the type attribute) without one;
// - OptionalHasElement: true when the optional holds a value (a plain tensor or sequence input:
//   true; none: false);
// - OptionalGetElement: the value an optional holds (a plain input is returned as it is).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_optional(KernelContext& ctx) {
  if (ctx.has_input(0)) {
    ctx.set_output_value(0, RuntimeValue::optional(*ctx.input_value(0)));
  } else {
    ctx.set_output_value(0, RuntimeValue::optional(std::nullopt));
  }
  return Status::ok();
}

Status eval_optional_has_element(KernelContext& ctx) {
  const RuntimeValue* v = ctx.input_value(0);
  bool has = v && (v->is_optional() ? v->has_element() : v->kind != RuntimeValue::Kind::kNone);
  Tensor t(DataType::kBool, {});
  t.mutable_data<uint8_t>()[0] = has;
  ctx.set_output(0, std::move(t));
  return Status::ok();
}

Status eval_optional_get_element(KernelContext& ctx) {
  const RuntimeValue* v = ctx.input_value(0);
  if (!v) return ctx.error("OptionalGetElement needs an input");
  if (!v->is_optional()) {
    ctx.set_output_value(0, *v);
    return Status::ok();
  }
  if (!v->has_element()) return ctx.error("OptionalGetElement of an empty optional");
  ctx.set_output_value(0, v->elems[0]);
  return Status::ok();
}

// ---- shape inference
TypeInfo opt_of(const TypeInfo& elem) {
  TypeInfo t;
  t.kind = ir::Type::Kind::kOptional;
  t.inner = std::make_shared<TypeInfo>(elem);
  return t;
}
Status infer_optional(InferContext& ctx) {
  if (ctx.has_input(0)) ctx.output(0) = opt_of(ctx.input(0));
  return Status::ok();
}

Status infer_optional_has_element(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(DataType::kBool, SymShape{});
  return Status::ok();
}

Status infer_optional_get_element(InferContext& ctx) {
  const TypeInfo& t = ctx.input(0);
  ctx.output(0) = t.kind == ir::Type::Kind::kOptional && t.inner ? *t.inner : t;
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
// A row: one input whose element type (of the optional, or of the tensor it holds) is any but
// bfloat16, the variable `var`.
OpRegistration optional_row(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer, const char* var) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer,
          .signature = var,
          .types = {{var, kAllTensorTypesButBFloat16}}};
}
const OpRegistration kOptionalOps[] = {
    optional_row("Optional", {15}, eval_optional, infer_optional, "V"),
    optional_row("OptionalHasElement", {15, 18}, eval_optional_has_element, infer_optional_has_element, "O"),
    optional_row("OptionalGetElement", {15, 18}, eval_optional_get_element, infer_optional_get_element, "O"),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(OptionalOps, kOptionalOps);

}  // namespace onnxtrim::ops
