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
// What unsqueeze_dims refuses, said with the axes and ranks.
std::string unsqueeze_axes_error(const std::vector<int64_t>& axes, int64_t rank_in) {
  std::string list;
  for (int64_t a : axes) list += (list.empty() ? "" : ",") + std::to_string(a);
  return "Unsqueeze axes [" + list + "] are out of range or repeated for a rank-" + std::to_string(rank_in) +
         " input (output rank " + std::to_string(rank_in + static_cast<int64_t>(axes.size())) + ")";
}

Status eval_unsqueeze(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axes = ints_from_input_or_attr(ctx, 1, "axes");
  if (!axes) return ctx.error("Unsqueeze needs axes");
  std::vector<bool> is_new;
  if (!unsqueeze_dims(*axes, x.rank(), &is_new)) return ctx.error(unsqueeze_axes_error(*axes, x.rank()));
  Dims out;
  size_t k = 0;
  for (bool b : is_new) out.push_back(b ? 1 : x.dims()[k++]);
  ctx.set_output(0, reshaped(x, out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_unsqueeze(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes =
      ctx.opset() >= 13 ? ctx.input_ints(1) : std::optional(ctx.node().attr_ints("axes"));
  if (!x.shape || !axes) return unranked_output(ctx, x.elem);
  std::vector<bool> is_new;
  if (!unsqueeze_dims(*axes, x.rank(), &is_new)) return ctx.error(unsqueeze_axes_error(*axes, x.rank()));
  SymShape out;
  size_t k = 0;
  for (bool b : is_new) out.push_back(b ? Expr::constant(1) : (*x.shape)[k++]);
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  if (x.values && out.size() <= 1) ctx.output(0).values = x.values;
  return Status::ok();
}
// ---- local folds
// Unsqueeze(Unsqueeze(x, a1), a2) -> Unsqueeze(x, a), a the positions in the final rank of the
// dims both insert (non-negative, ascending; each dim of x keeps its order, so one insertion of
// them all is the same tensor). The outer node stays, with the merged axes (an attribute before
// opset 13, a new initializer from 13) and x as its input.
// Refuses: an inner output read elsewhere or that is a graph output; axes that are not constant,
// empty, repeated or out of range; x of unknown rank (negative axes and ranges need it).
bool fold_unsqueeze_pair(ir::Node& n, FoldContext& fc) {
  ir::Value* mid = n.input(0);
  if (!mid || !mid->producer() || mid->is_graph_output() || mid->uses().size() != 1) return false;
  ir::Node& first = *mid->producer();
  if (first.op_type != "Unsqueeze" || !first.is_default_domain() || first.num_outputs() != 1) return false;
  auto axes_of = [&](const ir::Node& m) -> std::optional<std::vector<int64_t>> {
    if (fc.opset() >= 13)
      return m.num_inputs() > 1 && m.input(1) ? FoldContext::constant_ints(m.input(1)) : std::nullopt;
    return m.attr_ints("axes");
  };
  auto a1 = axes_of(first), a2 = axes_of(n);
  ir::Value* x = first.input(0);
  if (!a1 || !a2 || a1->empty() || a2->empty() || !x || x->type.rank() < 0) return false;
  const int64_t r1 = x->type.rank() + static_cast<int64_t>(a1->size());
  std::vector<bool> new1, new2;
  if (!unsqueeze_dims(*a1, x->type.rank(), &new1) || !unsqueeze_dims(*a2, r1, &new2)) return false;
  std::vector<int64_t> merged;
  size_t q = 0;  // the inner output's dim that a kept dim of the outer output is
  for (size_t k = 0; k < new2.size(); ++k) {
    bool inserted = new2[k] || new1[q++];
    if (inserted) merged.push_back(static_cast<int64_t>(k));
  }
  ir::Rewriter& rw = fc.rewriter();
  if (fc.opset() >= 13) {
    ir::Graph* g = n.graph();
    if (!g) return false;
    const int64_t len = static_cast<int64_t>(merged.size());
    ir::Value* axes = rw.add_initializer(*g, ir::Tensor::from_vector<int64_t>(ir::DataType::kInt64, {len}, merged),
                                         n.output(0)->name() + "_axes");
    rw.set_input(&n, 1, axes);
  } else {
    rw.set_attribute(&n, ir::Attribute::make_ints("axes", merged));
  }
  rw.set_input(&n, 0, x);
  rw.erase_node(&first);
  return true;
}

}  // namespace

// ---- registration (versions from Changelog.md)
const OpRegistration kUnsqueeze[] = {reshaping_op("Unsqueeze", {1, 11, 13, 21, 23, 24, 25}, eval_unsqueeze,
                                                  infer_unsqueeze, "axes", fold_unsqueeze_pair)};
ONNXTRIM_REGISTER_OPS(Unsqueeze, kUnsqueeze);

}  // namespace onnxtrim::ops
