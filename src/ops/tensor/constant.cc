// Constant: a tensor given by one of its value attributes.
#include <optional>

#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
// The tensor one of Constant's value attributes gives (value, value_float(s), value_int(s),
// value_string(s)); nullopt for any other attribute.
std::optional<Tensor> constant_attribute_value(const ir::Attribute& a) {
  if (a.name == "value" && a.t) return *a.t;
  if (a.name == "value_float") return Tensor::scalar_f32(a.f);
  if (a.name == "value_floats") return make_tensor<float>({static_cast<int64_t>(a.floats.size())}, a.floats);
  if (a.name == "value_int") return Tensor::scalar_i64(a.i);
  if (a.name == "value_ints") return make_tensor<int64_t>({static_cast<int64_t>(a.ints.size())}, a.ints);
  if (a.name == "value_string") {
    Tensor t(DataType::kString, {});
    t.strings()[0] = a.s;
    return t;
  }
  if (a.name == "value_strings") {
    Tensor t(DataType::kString, {static_cast<int64_t>(a.strings.size())});
    t.strings() = a.strings;
    return t;
  }
  return std::nullopt;
}

Status eval_constant(KernelContext& ctx) {
  for (const auto& a : ctx.node().attributes) {
    if (std::optional<Tensor> t = constant_attribute_value(a)) {
      ctx.set_output(0, std::move(*t));
      return Status::ok();
    }
    if (a.name == "sparse_value") return ctx.unsupported("Constant with a sparse_value");
  }
  return ctx.error("Constant has no value attribute");
}

// ---- shape inference (with value propagation)
Status infer_constant(InferContext& ctx) {
  // The value is right there: the tensor attribute read where it is, any other form evaluated.
  const Tensor* t = nullptr;
  for (const auto& a : ctx.node().attributes)
    if (a.name == "value" && a.t) t = a.t.get();
  std::optional<ops::KernelContext> k;  // made only for the other forms
  if (!t) {
    k.emplace(ctx.node(), ctx.opset(), std::vector<const RuntimeValue*>{}, nullptr);
    if (!eval_constant(*k).is_ok() || !k->outputs()[0].is_tensor()) return Status::ok();
    t = &k->outputs()[0].tensor;
  }
  SymShape s;
  for (int64_t d : t->dims()) s.push_back(Expr::constant(d));
  ctx.output(0) = TypeInfo::tensor(t->dtype(), s);
  ctx.output(0).values = constant_values(*t);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Constant, "", "Constant", (std::vector<int>{1, 9, 11, 12, 13, 19, 21, 23, 24, 25}), eval_constant);
ONNXTRIM_REGISTER_INFER(Constant, "", "Constant", infer_constant);

}  // namespace onnxtrim::ops
