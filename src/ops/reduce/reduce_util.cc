#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops::reduce {

int64_t axes_input_since(const std::string& op) {
  if (op == "ReduceSum") return 13;
  if (op == "ArgMax" || op == "ArgMin") return 1 << 30;  // always an attribute (axis)
  return 18;
}

namespace {
std::optional<std::vector<int64_t>> axes_of(const ir::Node& n, int64_t opset,
                                            const std::function<std::optional<std::vector<int64_t>>()>& input) {
  if (n.op_type == "ArgMax" || n.op_type == "ArgMin") return std::vector<int64_t>{n.attr_int("axis", 0)};
  if (opset >= axes_input_since(n.op_type)) {
    if (!n.input(1)) return std::vector<int64_t>{};
    return input();
  }
  return n.attr_ints("axes");
}
}  // namespace

Status plan(const KernelContext& ctx, const Dims& in, Plan* p) {
  const ir::Node& n = ctx.node();
  auto axes =
      axes_of(n, ctx.opset(), [&]() -> std::optional<std::vector<int64_t>> { return to_int64_vector(ctx.input(1)); });
  auto r = static_cast<int64_t>(in.size());
  bool keep = n.attr_int("keepdims", 1) != 0;
  p->reduced.assign(in.size(), false);
  // No axes with noop_with_empty_axes: a reduction over the empty set of axes. Every group is
  // one element and the kernel still applies its element-wise steps (|x| for ReduceL1, x² for
  // ReduceSumSquare, log x for ReduceLogSum ...); only the summation is the identity.
  if (axes->empty() && n.attr_int("noop_with_empty_axes", 0) == 0) p->reduced.assign(in.size(), true);
  for (int64_t a : *axes) {
    auto x = normalize_axis(a, r == 0 ? 1 : r);
    if (!x) return ctx.error(n.op_type + " axis " + std::to_string(a) + " out of range");
    if (r > 0) p->reduced[static_cast<size_t>(*x)] = true;
  }
  p->out_dims.clear();
  p->groups = 1;
  p->group_size = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    if (p->reduced[i]) {
      p->group_size *= in[i];
      if (keep) p->out_dims.push_back(1);
    } else {
      p->out_dims.push_back(in[i]);
      p->groups *= in[i];
    }
  }
  return Status::ok();
}

void for_each_group(const Dims& in, const Plan& p, const std::function<void(int64_t, const std::vector<int64_t>&)>& f) {
  Dims st = strides_of(in);
  std::vector<size_t> kept, red;
  for (size_t i = 0; i < in.size(); ++i) (p.reduced[i] ? red : kept).push_back(i);
  std::vector<int64_t> offsets(static_cast<size_t>(p.group_size));
  // Offsets within one group (relative), enumerated once.
  {
    std::vector<int64_t> c(red.size(), 0);
    for (int64_t k = 0; k < p.group_size; ++k) {
      int64_t off = 0;
      for (size_t j = 0; j < red.size(); ++j) off += c[j] * st[red[j]];
      offsets[static_cast<size_t>(k)] = off;
      for (int64_t j = static_cast<int64_t>(red.size()) - 1; j >= 0; --j) {
        auto u = static_cast<size_t>(j);
        if (++c[u] < in[red[u]]) break;
        c[u] = 0;
      }
    }
  }
  std::vector<int64_t> c(kept.size(), 0), abs(offsets.size());
  for (int64_t g = 0; g < p.groups; ++g) {
    int64_t base = 0;
    for (size_t j = 0; j < kept.size(); ++j) base += c[j] * st[kept[j]];
    for (size_t k = 0; k < offsets.size(); ++k) abs[k] = base + offsets[k];
    f(g, abs);
    for (int64_t j = static_cast<int64_t>(kept.size()) - 1; j >= 0; --j) {
      auto u = static_cast<size_t>(j);
      if (++c[u] < in[kept[u]]) break;
      c[u] = 0;
    }
  }
}

Status infer(InferContext& ctx, DataType out_elem) {
  const TypeInfo& x = ctx.input(0);
  const ir::Node& n = ctx.node();
  DataType elem = out_elem == DataType::kUndefined ? x.elem : out_elem;
  std::optional<std::vector<int64_t>> axes;
  if (n.op_type == "ArgMax" || n.op_type == "ArgMin") axes = std::vector<int64_t>{n.attr_int("axis", 0)};
  else if (ctx.opset() >= axes_input_since(n.op_type)) axes = n.input(1) ? ctx.input_ints(1) : std::vector<int64_t>{};
  else axes = n.attr_ints("axes");
  if (!x.shape || !axes) {
    ctx.output(0) = TypeInfo::tensor(elem, std::nullopt);
    return Status::ok();
  }
  bool keep = n.attr_int("keepdims", 1) != 0;
  if (axes->empty() && n.attr_int("noop_with_empty_axes", 0) != 0) {
    propagate_same(ctx);
    return Status::ok();
  }
  std::vector<bool> red(x.shape->size(), axes->empty());
  for (int64_t a : *axes) {
    auto v = normalize_axis(a, x.rank());
    if (!v) return ctx.error(n.op_type + " axis out of range");
    red[static_cast<size_t>(*v)] = true;
  }
  SymShape out;
  for (size_t i = 0; i < red.size(); ++i) {
    if (!red[i]) out.push_back((*x.shape)[i]);
    else if (keep) out.push_back(Expr::constant(1));
  }
  ctx.output(0) = TypeInfo::tensor(elem, out);
  // Sum/product of a known 1-D shape vector (numel computations in exported graphs).
  if (x.values && x.rank() == 1 && red[0] && (n.op_type == "ReduceProd" || n.op_type == "ReduceSum")) {
    Expr acc = Expr::constant(n.op_type == "ReduceProd" ? 1 : 0);
    for (const Expr& e : *x.values) acc = n.op_type == "ReduceProd" ? acc * e : acc + e;
    ctx.output(0).values = std::vector<Expr>{acc};
  }
  return Status::ok();
}

}  // namespace onnxtrim::ops::reduce
