// Scan: runs its body once per slice of the scan inputs (along their scan axes, forwards or
// backwards), carrying state values and stacking per-iteration scan outputs. Opset 8 has a
// leading batch axis on every state and scan input, scans axis 1, and takes an optional
// sequence_lens input (per batch entry; outputs past an entry's length are zero).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// Slice k along axis of t (the axis removed).
Tensor slice_at(const Tensor& t, int64_t axis, int64_t k) {
  Dims out = t.dims();
  out.erase(out.begin() + axis);
  int64_t outer = numel_of(Dims(t.dims().begin(), t.dims().begin() + axis));
  int64_t n = t.dims()[static_cast<size_t>(axis)];
  int64_t inner = numel_of(Dims(t.dims().begin() + axis + 1, t.dims().end()));
  Tensor s(t.dtype(), out);
  for (int64_t o = 0; o < outer; ++o) tensor::copy_elements(t, (o * n + k) * inner, s, o * inner, inner);
  return s;
}

// Stacks slices along `axis` (slices in iteration order; reversed when `reverse`).
Tensor stack_at(std::vector<Tensor>& parts, int64_t axis, bool reverse) {
  if (reverse) std::reverse(parts.begin(), parts.end());
  Dims d = parts[0].dims();
  d.insert(d.begin() + axis, static_cast<int64_t>(parts.size()));
  Tensor out(parts[0].dtype(), d);
  int64_t outer = numel_of(Dims(d.begin(), d.begin() + axis));
  int64_t inner = numel_of(Dims(d.begin() + axis + 1, d.end()));
  auto n = static_cast<int64_t>(parts.size());
  for (int64_t k = 0; k < n; ++k)
    for (int64_t o = 0; o < outer; ++o)
      tensor::copy_elements(parts[static_cast<size_t>(k)], o * inner, out, (o * n + k) * inner, inner);
  return out;
}

// One iteration: runs the body on `in` (the n states, then this iteration's slices of the scan
// inputs), keeps the new states and appends the iteration's scan outputs to `parts`.
Status scan_iteration(KernelContext& ctx, const ir::Graph& body, std::vector<RuntimeValue> in, size_t n,
                      std::vector<RuntimeValue>& state, std::vector<std::vector<Tensor>>& parts) {
  auto r = ctx.run_subgraph(body, std::move(in));
  if (!r) return std::move(r).take_status();
  auto& out = r.value();
  if (out.size() != n + parts.size()) return ctx.error("Scan body has the wrong number of outputs");
  for (size_t i = 0; i < n; ++i) state[i] = std::move(out[i]);
  for (size_t k = 0; k < parts.size(); ++k) parts[k].push_back(std::move(out[n + k].tensor));
  return Status::ok();
}

// ---- evaluate
// Opset 8: inputs are [sequence_lens], states [batch, ...], scan inputs [batch, seq, ...].
Status eval_scan8(KernelContext& ctx) {
  const ir::Attribute* a = ctx.node().attr("body");
  if (!a || !a->g) return ctx.error("Scan has no body");
  const ir::Graph& body = *a->g;
  auto m = static_cast<size_t>(ctx.node().attr_int("num_scan_inputs", 0));
  if (ctx.num_inputs() < 1 || m > ctx.num_inputs() - 1)
    return ctx.error("Scan num_scan_inputs is larger than its inputs");
  size_t n = ctx.num_inputs() - 1 - m;
  if (ctx.num_outputs() < n) return ctx.error("Scan has fewer outputs than states");
  size_t k_out = ctx.num_outputs() - n;
  auto dirs = ctx.node().attr_ints("directions", std::vector<int64_t>(m, 0));
  if (dirs.size() != m) return ctx.error("Scan directions has the wrong length");
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    if (!ctx.has_input(i) || ctx.input(i).rank() < (i > n ? 2 : 1))
      return ctx.error("Scan (opset 8) inputs need a batch axis (and scan inputs a sequence axis)");
  if (m == 0) return ctx.error("Scan needs at least one scan input");
  int64_t batch = ctx.input(1 + n).dims()[0];
  int64_t max_len = ctx.input(1 + n).dims()[1];
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).dims()[0] != batch) return ctx.error("Scan inputs differ in batch size");
    if (i > n && ctx.input(i).dims()[1] != max_len) return ctx.error("Scan inputs differ in sequence length");
  }
  std::vector<int64_t> lens(static_cast<size_t>(batch), max_len);
  if (ctx.has_input(0)) {
    lens = to_int64_vector(ctx.input(0));
    if (static_cast<int64_t>(lens.size()) != batch)
      return ctx.error("Scan sequence_lens must have one entry per batch entry");
    for (int64_t l : lens)
      if (l < 0 || l > max_len) return ctx.error("Scan sequence length " + std::to_string(l) + " is out of range");
  }
  std::vector<std::vector<Tensor>> final_states(n), stacked(k_out);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<RuntimeValue> state;
    for (size_t i = 0; i < n; ++i) state.push_back(RuntimeValue::of(slice_at(ctx.input(1 + i), 0, b)));
    std::vector<Tensor> seqs;
    for (size_t j = 0; j < m; ++j) seqs.push_back(slice_at(ctx.input(1 + n + j), 0, b));
    int64_t len = lens[static_cast<size_t>(b)];
    std::vector<std::vector<Tensor>> parts(k_out);
    for (int64_t it = 0; it < len; ++it) {
      std::vector<RuntimeValue> in = state;
      for (size_t j = 0; j < m; ++j) in.push_back(RuntimeValue::of(slice_at(seqs[j], 0, dirs[j] ? len - 1 - it : it)));
      OT_RETURN_IF_ERROR(scan_iteration(ctx, body, std::move(in), n, state, parts));
    }
    for (size_t i = 0; i < n; ++i) final_states[i].push_back(std::move(state[i].tensor));
    for (size_t k = 0; k < k_out; ++k) {
      if (parts[k].empty()) return ctx.unsupported("Scan with zero iterations");
      // Entries shorter than the longest sequence are padded with zeros.
      while (static_cast<int64_t>(parts[k].size()) < max_len)
        parts[k].emplace_back(parts[k][0].dtype(), parts[k][0].dims());
      stacked[k].push_back(stack_at(parts[k], 0, false));
    }
  }
  for (size_t i = 0; i < n; ++i) ctx.set_output(i, stack_at(final_states[i], 0, false));
  for (size_t k = 0; k < k_out; ++k) ctx.set_output(n + k, stack_at(stacked[k], 0, false));
  return Status::ok();
}

Status eval_scan(KernelContext& ctx) {
  if (ctx.opset() < 9) return eval_scan8(ctx);
  const ir::Attribute* a = ctx.node().attr("body");
  if (!a || !a->g) return ctx.error("Scan has no body");
  const ir::Graph& body = *a->g;
  auto m = static_cast<size_t>(ctx.node().attr_int("num_scan_inputs", 0));
  if (m > ctx.num_inputs()) return ctx.error("Scan num_scan_inputs is larger than its inputs");
  size_t n = ctx.num_inputs() - m;
  auto in_axes = ctx.node().attr_ints("scan_input_axes", std::vector<int64_t>(m, 0));
  auto in_dirs = ctx.node().attr_ints("scan_input_directions", std::vector<int64_t>(m, 0));
  size_t k_out = ctx.num_outputs() - n;
  auto out_axes = ctx.node().attr_ints("scan_output_axes", std::vector<int64_t>(k_out, 0));
  auto out_dirs = ctx.node().attr_ints("scan_output_directions", std::vector<int64_t>(k_out, 0));
  if (in_axes.size() != m || in_dirs.size() != m || out_axes.size() != k_out || out_dirs.size() != k_out)
    return ctx.error("Scan axis/direction attributes have the wrong length");
  std::vector<RuntimeValue> state;
  for (size_t i = 0; i < n; ++i) state.push_back(*ctx.input_value(i));
  int64_t trips = -1;
  std::vector<int64_t> axes(m);
  for (size_t j = 0; j < m; ++j) {
    const Tensor& t = ctx.input(n + j);
    auto ax = normalize_axis(in_axes[j], t.rank());
    if (!ax) return ctx.error("Scan input axis out of range");
    axes[j] = *ax;
    int64_t len = t.dims()[static_cast<size_t>(*ax)];
    if (trips >= 0 && len != trips) return ctx.error("Scan inputs differ in length");
    trips = len;
  }
  if (trips < 0) trips = 0;
  std::vector<std::vector<Tensor>> parts(k_out);
  for (int64_t it = 0; it < trips; ++it) {
    std::vector<RuntimeValue> in = state;
    for (size_t j = 0; j < m; ++j) {
      int64_t k = in_dirs[j] ? trips - 1 - it : it;
      in.push_back(RuntimeValue::of(slice_at(ctx.input(n + j), axes[j], k)));
    }
    OT_RETURN_IF_ERROR(scan_iteration(ctx, body, std::move(in), n, state, parts));
  }
  for (size_t i = 0; i < n; ++i) ctx.set_output_value(i, std::move(state[i]));
  for (size_t k = 0; k < k_out; ++k) {
    if (parts[k].empty()) return ctx.unsupported("Scan with zero iterations");
    auto ax = normalize_axis(out_axes[k], parts[k][0].rank() + 1);
    if (!ax) return ctx.error("Scan output axis out of range");
    ctx.set_output(n + k, stack_at(parts[k], *ax, out_dirs[k] != 0));
  }
  return Status::ok();
}

// ---- shape inference: states keep their types; scan outputs gain the scan dim
Status infer_scan8(InferContext& ctx) {
  const ir::Attribute* a = ctx.node().attr("body");
  if (!a || !a->g) return Status::ok();
  auto m = static_cast<size_t>(ctx.node().attr_int("num_scan_inputs", 0));
  if (ctx.num_inputs() < 1 || m > ctx.num_inputs() - 1) return Status::ok();
  size_t n = ctx.num_inputs() - 1 - m;
  std::optional<Expr> batch, seq;
  std::vector<TypeInfo> in;
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    TypeInfo t = ctx.input(i);
    t.values.reset();
    size_t drop = i > n ? 2 : 1;
    if (t.shape && t.shape->size() >= drop) {
      batch = (*t.shape)[0];
      if (drop == 2) seq = (*t.shape)[1];
      t.shape->erase(t.shape->begin(), t.shape->begin() + static_cast<std::ptrdiff_t>(drop));
    } else {
      t.shape.reset();
    }
    in.push_back(t);
  }
  auto r = ctx.infer_subgraph(*a->g, in);
  if (!r) return Status::ok();
  for (size_t i = 0; i < ctx.num_outputs() && i < r.value().size(); ++i) {
    TypeInfo t = r.value()[i];
    t.values.reset();
    if (t.shape) {
      if (i >= n) t.shape->insert(t.shape->begin(), seq ? *seq : Expr::fresh());
      t.shape->insert(t.shape->begin(), batch ? *batch : Expr::fresh());
    }
    ctx.output(i) = t;
  }
  return Status::ok();
}

Status infer_scan(InferContext& ctx) {
  if (ctx.opset() < 9) return infer_scan8(ctx);
  const ir::Attribute* a = ctx.node().attr("body");
  if (!a || !a->g) return Status::ok();
  auto m = static_cast<size_t>(ctx.node().attr_int("num_scan_inputs", 0));
  if (m > ctx.num_inputs()) return Status::ok();
  size_t n = ctx.num_inputs() - m;
  auto in_axes = ctx.node().attr_ints("scan_input_axes", std::vector<int64_t>(m, 0));
  std::vector<TypeInfo> in;
  std::optional<Expr> trips;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    TypeInfo t = ctx.input(i);
    t.values.reset();
    if (i >= n && t.shape && in_axes.size() == m) {
      auto ax = normalize_axis(in_axes[i - n], t.rank());
      if (ax) {
        trips = (*t.shape)[static_cast<size_t>(*ax)];
        t.shape->erase(t.shape->begin() + *ax);
      } else {
        t.shape.reset();
      }
    }
    in.push_back(t);
  }
  auto r = ctx.infer_subgraph(*a->g, in);
  if (!r) return Status::ok();
  size_t k_out = ctx.num_outputs() - n;
  auto out_axes = ctx.node().attr_ints("scan_output_axes", std::vector<int64_t>(k_out, 0));
  for (size_t i = 0; i < ctx.num_outputs() && i < r.value().size(); ++i) {
    TypeInfo t = r.value()[i];
    t.values.reset();
    if (i >= n && t.shape && out_axes.size() == k_out) {
      auto ax = normalize_axis(out_axes[i - n], t.rank() + 1);
      if (ax) t.shape->insert(t.shape->begin() + *ax, trips ? *trips : Expr::fresh());
      else t.shape.reset();
    }
    ctx.output(i) = t;
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Scan, "", "Scan", (std::vector<int>{8, 9, 11, 16, 19, 21, 23, 24, 25}), eval_scan);
ONNXTRIM_REGISTER_INFER(Scan, "", "Scan", infer_scan);

}  // namespace onnxtrim::ops
