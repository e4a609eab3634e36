// Optional: an optional holding the input, or empty (of the type attribute) without one.
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

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Optional, "", "Optional", (std::vector<int>{15}), eval_optional);
ONNXTRIM_REGISTER_INFER(Optional, "", "Optional", infer_optional);
ONNXTRIM_REGISTER_TYPES(Optional, "", "Optional", "V",
                        {{"V", kIntTypes | kComplexTypes |
                                   type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                              ir::DataType::kFloat16, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
