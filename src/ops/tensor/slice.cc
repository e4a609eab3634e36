// Slice: a strided window along some axes (attributes before opset 10, inputs after).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};

std::optional<SliceParams> params_of(const ir::Node& n, int64_t opset,
                                     const std::function<std::optional<std::vector<int64_t>>(size_t)>& input_ints) {
  SliceParams p;
  if (opset < 10) {
    p.starts = n.attr_ints("starts");
    p.ends = n.attr_ints("ends");
    p.axes = n.attr_ints("axes");
  } else {
    auto s = input_ints(1), e = input_ints(2);
    if (!s || !e) return std::nullopt;
    p.starts = *s;
    p.ends = *e;
    if (n.input(3)) {
      auto a = input_ints(3);
      if (!a) return std::nullopt;
      p.axes = *a;
    }
    if (n.input(4)) {
      auto st = input_ints(4);
      if (!st) return std::nullopt;
      p.steps = *st;
    }
  }
  if (p.axes.empty())
    for (size_t i = 0; i < p.starts.size(); ++i) p.axes.push_back(static_cast<int64_t>(i));
  if (p.steps.empty()) p.steps.assign(p.starts.size(), 1);
  if (p.ends.size() != p.starts.size() || p.axes.size() != p.starts.size() || p.steps.size() != p.starts.size())
    return std::nullopt;
  return p;
}

// Clamped start and element count along an axis of size d.
std::pair<int64_t, int64_t> clamp_axis(int64_t start, int64_t end, int64_t step, int64_t d) {
  if (start < 0) start += d;
  if (end < 0) end += d;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, d);
    end = std::clamp<int64_t>(end, 0, d);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, d - 1);
  end = std::clamp<int64_t>(end, -1, d - 1);
  return {start, start > end ? (start - end - step - 1) / (-step) : 0};
}

Status eval_slice(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Slice on sub-byte types");
  auto p = params_of(ctx.node(), ctx.opset(), [&](size_t i) -> std::optional<std::vector<int64_t>> {
    if (!ctx.has_input(i)) return std::nullopt;
    return to_int64_vector(ctx.input(i));
  });
  if (!p) return ctx.error("Slice parameters are malformed");
  int64_t r = x.rank();
  Dims start(static_cast<size_t>(r), 0), step(static_cast<size_t>(r), 1), out = x.dims();
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (size_t i = 0; i < p->axes.size(); ++i) {
    auto a = normalize_axis(p->axes[i], r);
    if (!a || seen[static_cast<size_t>(*a)]) return ctx.error("Slice axes are invalid");
    seen[static_cast<size_t>(*a)] = true;
    if (p->steps[i] == 0) return ctx.error("Slice step cannot be 0");
    auto [s, n] = clamp_axis(p->starts[i], p->ends[i], p->steps[i], x.dims()[static_cast<size_t>(*a)]);
    start[static_cast<size_t>(*a)] = s;
    step[static_cast<size_t>(*a)] = p->steps[i];
    out[static_cast<size_t>(*a)] = n;
  }
  std::vector<int64_t> index = axiswise_index(x, out, [&](size_t k, int64_t c) { return start[k] + c * step[k]; });
  ctx.set_output(0, take(x, out, index));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_slice(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  auto p = params_of(ctx.node(), ctx.opset(), [&](size_t i) { return ctx.input_ints(i); });
  if (!x.shape || !p) {
    std::optional<SymShape> s;
    if (x.shape) s = unknown_dims(ctx, x.rank());
    ctx.output(0) = TypeInfo::tensor(x.elem, s);
    return Status::ok();
  }
  SymShape out = *x.shape;
  int64_t r = x.rank();
  std::vector<std::pair<int64_t, int64_t>> ranges(static_cast<size_t>(r), {0, 1});  // for values
  bool values_ok = x.values.has_value() && r == 1;
  for (size_t i = 0; i < p->axes.size(); ++i) {
    auto a = normalize_axis(p->axes[i], r);
    if (!a || p->steps[i] == 0) return ctx.error("Slice parameters are malformed");
    const Expr& d = (*x.shape)[static_cast<size_t>(*a)];
    int64_t s = p->starts[i], e = p->ends[i], st = p->steps[i];
    if (auto dc = d.constant_value()) {
      auto [s0, n] = clamp_axis(s, e, st, *dc);
      out[static_cast<size_t>(*a)] = Expr::constant(n);
      if (values_ok) ranges[0] = {s0, st}, values_ok = values_ok && true;
      continue;
    }
    values_ok = false;
    // Symbolic dim: the common forms (dims are non-negative).
    const int64_t big = int64_t{1} << 62;
    if (st == 1 && s >= 0 && e >= big)
      out[static_cast<size_t>(*a)] = Expr::max(d - Expr::constant(s), Expr::constant(0));
    else if (st == 1 && s >= 0 && e >= 0 && e < big)
      out[static_cast<size_t>(*a)] = Expr::max(Expr::min(d, Expr::constant(e)) - Expr::constant(s), Expr::constant(0));
    else if (st == 1 && s < 0 && e >= big) out[static_cast<size_t>(*a)] = Expr::min(Expr::constant(-s), d);
    else if (st == 1 && s >= 0 && e < 0 && e > -big)
      out[static_cast<size_t>(*a)] = Expr::max(d + Expr::constant(e - s), Expr::constant(0));
    else out[static_cast<size_t>(*a)] = ctx.fresh();
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  if (values_ok) {
    auto n = out[0].constant_value();
    if (n) {
      std::vector<Expr> v;
      for (int64_t k = 0; k < *n; ++k)
        v.push_back((*x.values)[static_cast<size_t>(ranges[0].first + k * ranges[0].second)]);
      ctx.output(0).values = v;
    }
  }
  return Status::ok();
}
// ---- local folds
// Slice that takes everything -> x
bool fold_full_slice(ir::Node& n, FoldContext& fc) {
  if (!FoldContext::same_shape(n.input(0), n.output(0))) return false;
  // Equal shapes with positive steps mean every element, in order; a negative step reverses.
  if (n.input(4) && !constant_all_ones(n.input(4))) return false;
  return fc.forward(n, 0, n.input(0));
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Slice, "", "Slice", (std::vector<int>{1, 10, 11, 13}), eval_slice);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Slice, "", "Slice");
ONNXTRIM_REGISTER_INFER(Slice, "", "Slice", infer_slice);
ONNXTRIM_REGISTER_TYPES(Slice, "", "Slice", "T Tind Tind Tind Tind",
                        {{"T", kAllTensorTypes}, {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(Slice0, "", "Slice", "eliminate_nop_ops", fold_full_slice);

}  // namespace onnxtrim::ops
