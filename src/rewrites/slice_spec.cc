#include "rewrites/slice_spec.h"

#include <algorithm>

#include "ops/fold.h"
#include "ops/kernel_util.h"

namespace onnxtrim::passes {

std::optional<std::map<int64_t, AxisWindow>> slice_windows(const ir::Node& n, int64_t opset, int64_t rank) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = n.attr_ints("starts");
    ends = n.attr_ints("ends");
    axes = n.attr_ints("axes");
  } else {
    auto s = ops::FoldContext::constant_ints(n.input(1));
    auto e = ops::FoldContext::constant_ints(n.input(2));
    if (!s || !e) return std::nullopt;
    starts = *s;
    ends = *e;
    if (n.input(3)) {
      auto a = ops::FoldContext::constant_ints(n.input(3));
      if (!a) return std::nullopt;
      axes = *a;
    }
    if (n.input(4)) {
      auto st = ops::FoldContext::constant_ints(n.input(4));
      if (!st) return std::nullopt;
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return std::nullopt;
  std::map<int64_t, AxisWindow> out;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (a < 0) {
      if (rank < 0 || a < -rank) return std::nullopt;
      a += rank;
    }
    if ((rank >= 0 && a >= rank) || steps[i] == 0 || out.count(a)) return std::nullopt;
    out[a] = AxisWindow{starts[i], ends[i], steps[i]};
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>> resolve_window(const AxisWindow& w, std::optional<int64_t> dim) {
  if (w.step != 1) return std::nullopt;
  int64_t s = w.start, e = w.end;
  if (!dim) {
    if (s < 0 || e < 0) return std::nullopt;
    return std::pair{s, e};
  }
  int64_t d = *dim;
  if (s < 0) s += d;
  if (e < 0) e += d;
  s = std::clamp<int64_t>(s, 0, d);
  e = std::clamp<int64_t>(e, 0, d);
  return std::pair{s, e};
}

std::optional<std::pair<int64_t, int64_t>> last_axis_window(const ir::Node& slice, int64_t opset, int64_t rank,
                                                            int64_t dim) {
  auto w = slice_windows(slice, opset, rank);
  if (!w || w->size() != 1 || w->begin()->first != rank - 1) return std::nullopt;
  return resolve_window(w->begin()->second, dim);
}

std::optional<int64_t> known_dim(const ir::Value* v, int64_t a) {
  if (!v || !v->type.has_shape || a < 0 || a >= v->type.rank()) return std::nullopt;
  return v->type.dims[static_cast<size_t>(a)].value;
}

}  // namespace onnxtrim::passes
