// Concat: joins tensors along an axis.
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_concat(KernelContext& ctx) {
  std::vector<const Tensor*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) ins.push_back(&ctx.input(i));
  if (ins.empty()) return ctx.error("Concat needs inputs");
  if (!movable(ins[0]->dtype())) return ctx.unsupported("Concat on sub-byte types");
  int64_t r = ins[0]->rank();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), r);
  if (!axis) return ctx.error("Concat axis out of range");
  Dims out = ins[0]->dims();
  out[static_cast<size_t>(*axis)] = 0;
  for (const Tensor* t : ins) {
    if (t->rank() != r || t->dtype() != ins[0]->dtype()) return ctx.error("Concat inputs differ in rank or type");
    for (int64_t k = 0; k < r; ++k)
      if (k != *axis && t->dims()[static_cast<size_t>(k)] != ins[0]->dims()[static_cast<size_t>(k)])
        return ctx.error("Concat inputs differ outside the axis");
    out[static_cast<size_t>(*axis)] += t->dims()[static_cast<size_t>(*axis)];
  }
  Tensor y(ins[0]->dtype(), out);
  int64_t outer = numel_of(Dims(out.begin(), out.begin() + *axis));
  int64_t row = numel_of(Dims(out.begin() + *axis, out.end()));
  for (int64_t o = 0; o < outer; ++o) {
    int64_t pos = 0;
    for (const Tensor* t : ins) {
      int64_t chunk = numel_of(Dims(t->dims().begin() + *axis, t->dims().end()));
      copy_elements(*t, o * chunk, y, o * row + pos, chunk);
      pos += chunk;
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_concat(InferContext& ctx) {
  std::optional<SymShape> out;
  DataType elem = ctx.input(0).elem;
  bool known = true;
  std::vector<Expr> values;
  bool all_values = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const TypeInfo& t = ctx.input(i);
    if (t.values) values.insert(values.end(), t.values->begin(), t.values->end());
    else all_values = false;
    if (!t.shape) {
      known = false;
      continue;
    }
    auto axis = normalize_axis(ctx.node().attr_int("axis", 0), t.rank());
    if (!axis) return ctx.error("Concat axis out of range");
    if (!out) {
      out = *t.shape;
      continue;
    }
    if (out->size() != t.shape->size()) return ctx.error("Concat inputs differ in rank");
    auto a = static_cast<size_t>(*axis);
    (*out)[a] = (*out)[a] + (*t.shape)[a];
    for (size_t k = 0; k < out->size(); ++k)
      if (k != a && (*out)[k].is_fresh()) (*out)[k] = (*t.shape)[k];
  }
  ctx.output(0) = TypeInfo::tensor(elem, known ? out : std::nullopt);
  if (known && out && out->size() == 1 && all_values && values.size() <= kMaxPropagated) ctx.output(0).values = values;
  return Status::ok();
}
// ---- local folds
// Concat of one input -> the input
bool fold_single_concat(ir::Node& n, FoldContext& fc) {
  if (n.num_inputs() != 1) return false;  // y = x exactly
  return fc.forward(n, 0, n.input(0));
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Concat, "", "Concat", (std::vector<int>{1, 4, 11, 13}), eval_concat);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Concat, "", "Concat");
ONNXTRIM_REGISTER_INFER(Concat, "", "Concat", infer_concat);
ONNXTRIM_REGISTER_TYPES(Concat, "", "Concat", "T...", {{"T", kAllTensorTypes}});
ONNXTRIM_REGISTER_FOLD(ConcatFold0, "", "Concat", "eliminate_nop_ops", fold_single_concat);

}  // namespace onnxtrim::ops
