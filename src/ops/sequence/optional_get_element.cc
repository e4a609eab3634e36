// OptionalGetElement: the value an optional holds (a plain input is returned as it is).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
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
Status infer_optional_get_element(InferContext& ctx) {
  const TypeInfo& t = ctx.input(0);
  ctx.output(0) = t.kind == ir::Type::Kind::kOptional && t.inner ? *t.inner : t;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(OptionalGetElement, "", "OptionalGetElement", (std::vector<int>{15, 18}),
                     eval_optional_get_element);
ONNXTRIM_REGISTER_INFER(OptionalGetElement, "", "OptionalGetElement", infer_optional_get_element);
ONNXTRIM_REGISTER_TYPES(OptionalGetElement, "", "OptionalGetElement", "O",
                        {{"O", kIntTypes | kComplexTypes |
                                   type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                              ir::DataType::kFloat16, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
