// OptionalHasElement: true when the optional holds a value (a plain tensor or sequence input: true; none: false).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_optional_has_element(KernelContext& ctx) {
  const RuntimeValue* v = ctx.input_value(0);
  bool has = v && (v->is_optional() ? v->has_element() : v->kind != RuntimeValue::Kind::kNone);
  Tensor t(DataType::kBool, {});
  t.mutable_data<uint8_t>()[0] = has;
  ctx.set_output(0, std::move(t));
  return Status::ok();
}

// ---- shape inference
Status infer_optional_has_element(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(DataType::kBool, SymShape{});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(OptionalHasElement, "", "OptionalHasElement", (std::vector<int>{15, 18}),
                     eval_optional_has_element);
ONNXTRIM_REGISTER_INFER(OptionalHasElement, "", "OptionalHasElement", infer_optional_has_element);
ONNXTRIM_REGISTER_TYPES(OptionalHasElement, "", "OptionalHasElement", "O",
                        {{"O", kIntTypes | kComplexTypes |
                                   type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                              ir::DataType::kFloat16, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
