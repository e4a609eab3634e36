// Squeeze: removes dims of size 1 (the given axes, or all of them).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_squeeze(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axes = ints_from_input_or_attr(ctx, 1, "axes");
  std::vector<bool> drop(static_cast<size_t>(x.rank()), false);
  if (axes && !axes->empty()) {
    for (int64_t a : *axes) {
      auto n = normalize_axis(a, x.rank());
      if (!n || x.dims()[static_cast<size_t>(*n)] != 1)
        return ctx.error("Squeeze axis " + std::to_string(a) + " is not a dim of size 1");
      drop[static_cast<size_t>(*n)] = true;
    }
  } else {
    for (size_t i = 0; i < drop.size(); ++i) drop[i] = x.dims()[i] == 1;
  }
  Dims out;
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) out.push_back(x.dims()[i]);
  ctx.set_output(0, reshaped(x, out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_squeeze(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset() >= 13) {
    if (ctx.has_input(1)) axes = ctx.input_ints(1);
    else axes = std::vector<int64_t>{};
  } else {
    axes = ctx.node().attr_ints("axes");
  }
  if (!x.shape || !axes) return unranked_output(ctx, x.elem);
  std::vector<bool> drop(x.shape->size(), false);
  if (!axes->empty()) {
    for (int64_t a : *axes) {
      auto n = normalize_axis(a, x.rank());
      if (!n) return ctx.error("Squeeze axis out of range");
      drop[static_cast<size_t>(*n)] = true;
    }
  } else {
    for (size_t i = 0; i < drop.size(); ++i) {
      auto c = (*x.shape)[i].constant_value();
      if (!c) return unranked_output(ctx, x.elem);  // cannot tell whether it is 1
      drop[i] = *c == 1;
    }
  }
  SymShape out;
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) out.push_back((*x.shape)[i]);
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  if (x.values && out.size() <= 1) ctx.output(0).values = x.values;
  return Status::ok();
}
// ---- local folds
// Squeeze(Unsqueeze(x, axes), axes) -> x: the same axes inserted then removed
bool fold_squeeze_unsqueeze(ir::Node& n, FoldContext& fc) {
  ir::Value* mid = n.input(0);
  if (!mid || !mid->producer() || mid->is_graph_output()) return false;
  ir::Node& first = *mid->producer();
  if (first.op_type != "Unsqueeze" || !first.is_default_domain()) return false;
  auto axes_of = [&](const ir::Node& m) -> std::optional<std::vector<int64_t>> {
    if (fc.opset() >= 13) return m.input(1) ? FoldContext::constant_ints(m.input(1)) : std::nullopt;
    return m.attr_ints("axes");
  };
  auto a = axes_of(first), b = axes_of(n);
  if (!a || !b || a->empty() || *a != *b) return false;
  for (int64_t x : *a)
    if (x < 0) return false;  // negative axes mean different positions in the two ranks
  if (!fc.forward(n, 0, first.input(0))) return false;
  if (!mid->has_uses()) fc.rewriter().erase_node(&first);
  return true;
}
}  // namespace

// ---- registration (versions from Changelog.md)
const OpRegistration kSqueeze[] = {
    reshaping_op("Squeeze", {1, 11, 13, 21, 23, 24, 25}, eval_squeeze, infer_squeeze, "axes", fold_squeeze_unsqueeze)};
ONNXTRIM_REGISTER_OPS(Squeeze, kSqueeze);

}  // namespace onnxtrim::ops
