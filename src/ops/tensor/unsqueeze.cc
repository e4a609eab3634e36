// Unsqueeze: inserts dims of size 1 (axes attribute before opset 13, input after).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
std::optional<Dims> unsqueeze_dims(const Dims& in_axes, int64_t rank_in, std::vector<bool>* is_new) {
  int64_t r = rank_in + static_cast<int64_t>(in_axes.size());
  is_new->assign(static_cast<size_t>(r), false);
  for (int64_t a : in_axes) {
    auto n = normalize_axis(a, r);
    if (!n || (*is_new)[static_cast<size_t>(*n)]) return std::nullopt;
    (*is_new)[static_cast<size_t>(*n)] = true;
  }
  return Dims{};
}

Status eval_unsqueeze(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axes = ints_from_input_or_attr(ctx, 1, "axes");
  if (!axes) return ctx.error("Unsqueeze needs axes");
  std::vector<bool> is_new;
  if (!unsqueeze_dims(*axes, x.rank(), &is_new)) {
    std::string list;
    for (int64_t a : *axes) list += (list.empty() ? "" : ",") + std::to_string(a);
    return ctx.error("Unsqueeze axes [" + list + "] are out of range or repeated for a rank-" + std::to_string(x.rank()) +
                     " input (output rank " + std::to_string(x.rank() + static_cast<int64_t>(axes->size())) + ")");
  }
  Dims out;
  size_t k = 0;
  for (bool b : is_new) out.push_back(b ? 1 : x.dims()[k++]);
  ctx.set_output(0, reshaped(x, out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_unsqueeze(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes = ctx.opset() >= 13 ? ctx.input_ints(1) : std::optional(ctx.node().attr_ints("axes"));
  if (!x.shape || !axes) {
    ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
    return Status::ok();
  }
  std::vector<bool> is_new;
  if (!unsqueeze_dims(*axes, x.rank(), &is_new)) {
    std::string list;
    for (int64_t a : *axes) list += (list.empty() ? "" : ",") + std::to_string(a);
    return ctx.error("Unsqueeze axes [" + list + "] are out of range or repeated for a rank-" + std::to_string(x.rank()) +
                     " input (output rank " + std::to_string(x.rank() + static_cast<int64_t>(axes->size())) + ")");
  }
  SymShape out;
  size_t k = 0;
  for (bool b : is_new) out.push_back(b ? Expr::constant(1) : (*x.shape)[k++]);
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  if (x.values && out.size() <= 1) ctx.output(0).values = x.values;
  return Status::ok();
}
// ---- local folds
// Output provably the same shape and type as the input -> the input itself
bool fold_unsqueeze_nop(ir::Node& n, FoldContext& fc) {
  if (!FoldContext::same_shape(n.input(0), n.output(0))) return false;
  return fc.forward(n, 0, n.input(0));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Unsqueeze, "", "Unsqueeze", (std::vector<int>{1, 11, 13, 21, 23, 24, 25}), eval_unsqueeze);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Unsqueeze, "", "Unsqueeze");
ONNXTRIM_REGISTER_INFER(Unsqueeze, "", "Unsqueeze", infer_unsqueeze);
ONNXTRIM_REGISTER_TYPES(Unsqueeze, "", "Unsqueeze", "- axes", {{"axes", type_bits({ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(UnsqueezeFold0, "", "Unsqueeze", "eliminate_nop_ops", fold_unsqueeze_nop);

}  // namespace onnxtrim::ops
