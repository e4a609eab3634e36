// ConstantOfShape: a tensor of the given shape filled with one value (float 0 by default).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {

// A rank read from the length of a shape input is believed up to this; a longer shape tensor
// (a Range of 10^12 fed as a shape) leaves the rank unknown rather than making 10^12 dims.
constexpr int64_t kConstantOfShapeMaxRank = 1024;
using namespace tensor;

// ---- evaluate
Status eval_constant_of_shape(KernelContext& ctx) {
  std::vector<int64_t> dims = to_int64_vector(ctx.input(0));
  for (int64_t d : dims)
    if (d < 0) return ctx.error("ConstantOfShape dims must be non-negative");
  const ir::Attribute* a = ctx.node().attr("value");
  Tensor v = a && a->t ? *a->t : Tensor::scalar_f32(0.0f);
  if (v.numel() != 1) return ctx.error("ConstantOfShape value must have one element");
  Tensor out(v.dtype(), dims);
  if (v.dtype() == DataType::kString) {
    for (auto& s : out.strings()) s = v.strings()[0];
  } else {
    size_t w = elem_size(v.dtype());
    if (w == 0) return ctx.unsupported("ConstantOfShape of sub-byte types");
    uint8_t* p = out.numel() ? out.mutable_bytes() : nullptr;
    for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(p + i * static_cast<int64_t>(w), v.bytes(), w);
  }
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_constant_of_shape(InferContext& ctx) {
  const ir::Attribute* a = ctx.node().attr("value");
  DataType elem = a && a->t ? a->t->dtype() : DataType::kFloat;
  const auto& vals = ctx.input_values(0);
  std::optional<SymShape> s;
  if (vals) s = *vals;
  else if (ctx.input(0).shape && ctx.input(0).shape->size() == 1)
    if (auto n = (*ctx.input(0).shape)[0].constant_value(); n && *n <= kConstantOfShapeMaxRank)
      s = unknown_dims(ctx, *n);
  ctx.output(0) = TypeInfo::tensor(elem, s);
  // A small integer fill is propagated too.
  if (s && s->size() <= 1 && tracks_values(elem) && a && a->t) {
    int64_t n = s->empty() ? 1 : (*s)[0].constant_value().value_or(-1);
    if (n >= 0 && n <= static_cast<int64_t>(kMaxPropagated))
      ctx.output(0).values = std::vector<Expr>(static_cast<size_t>(n), Expr::constant(to_int64_vector(*a->t)[0]));
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ConstantOfShape, "", "ConstantOfShape", (std::vector<int>{9, 20, 21, 23, 24, 25}),
                     eval_constant_of_shape);
ONNXTRIM_REGISTER_INFER(ConstantOfShape, "", "ConstantOfShape", infer_constant_of_shape);
ONNXTRIM_REGISTER_TYPES(ConstantOfShape, "", "ConstantOfShape", "T1", {{"T1", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
