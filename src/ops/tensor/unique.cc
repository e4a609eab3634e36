// Unique (11): the distinct elements (or, with axis, the distinct slices along axis) of X.
// Outputs: Y (sorted ascending when sorted = 1, the default, else in order of first
// occurrence), indices (first occurrence of each in X), inverse_indices (for each element or
// slice of X, its position in Y) and counts. Without axis X is flattened.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// Three-way comparison of slices i and j (each `inner` elements at stride along outer/len).
int compare_slices(const Tensor& x, int64_t outer, int64_t len, int64_t inner, int64_t i, int64_t j) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r = 0; r < inner; ++r) {
      int64_t a = (o * len + i) * inner + r, b = (o * len + j) * inner + r;
      if (x.dtype() == DataType::kString) {
        int c = x.strings()[static_cast<size_t>(a)].compare(x.strings()[static_cast<size_t>(b)]);
        if (c) return c < 0 ? -1 : 1;
      } else if (x.dtype() == DataType::kInt64) {
        int64_t va = x.data<int64_t>()[a], vb = x.data<int64_t>()[b];
        if (va != vb) return va < vb ? -1 : 1;
      } else {
        double va = element_as_double(x, a), vb = element_as_double(x, b);
        if (va != vb) return va < vb ? -1 : 1;
      }
    }
  return 0;
}

// ---- evaluate
Status eval_unique(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Unique needs an input");
  const Tensor& x = ctx.input(0);
  bool has_axis = ctx.node().attr("axis") != nullptr;
  bool sorted = ctx.node().attr_int("sorted", 1) != 0;
  Dims dims = has_axis ? x.dims() : Dims{x.numel()};
  int64_t axis = 0;
  if (has_axis) {
    auto a = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
    if (!a) return ctx.error("Unique axis out of range");
    axis = *a;
  }
  int64_t len = dims[static_cast<size_t>(axis)];
  int64_t outer = numel_of(Dims(dims.begin(), dims.begin() + axis));
  int64_t inner = numel_of(Dims(dims.begin() + axis + 1, dims.end()));
  // Slices ordered by value (stable: equal slices keep their order of occurrence).
  std::vector<int64_t> order(static_cast<size_t>(len));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t i, int64_t j) { return compare_slices(x, outer, len, inner, i, j) < 0; });
  std::vector<int64_t> first, counts, group_of(static_cast<size_t>(len));
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || compare_slices(x, outer, len, inner, order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      counts.push_back(0);
    }
    counts.back()++;
    group_of[static_cast<size_t>(order[k])] = static_cast<int64_t>(first.size()) - 1;
  }
  // Output order of the groups: by value, or by first occurrence.
  std::vector<int64_t> rank(first.size());
  std::iota(rank.begin(), rank.end(), 0);
  if (!sorted)
    std::stable_sort(rank.begin(), rank.end(), [&](int64_t a, int64_t b) {
      return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)];
    });
  std::vector<int64_t> pos_of(first.size());
  for (size_t p = 0; p < rank.size(); ++p) pos_of[static_cast<size_t>(rank[p])] = static_cast<int64_t>(p);
  auto k = static_cast<int64_t>(first.size());
  Dims ydims = dims;
  ydims[static_cast<size_t>(axis)] = k;
  Tensor y(x.dtype(), ydims);
  std::vector<int64_t> idx(static_cast<size_t>(k)), cnt(static_cast<size_t>(k)), inv(static_cast<size_t>(len));
  for (int64_t p = 0; p < k; ++p) {
    int64_t g = rank[static_cast<size_t>(p)];
    idx[static_cast<size_t>(p)] = first[static_cast<size_t>(g)];
    cnt[static_cast<size_t>(p)] = counts[static_cast<size_t>(g)];
    for (int64_t o = 0; o < outer; ++o)
      tensor::copy_elements(x, (o * len + first[static_cast<size_t>(g)]) * inner, y, (o * k + p) * inner, inner);
  }
  for (int64_t i = 0; i < len; ++i)
    inv[static_cast<size_t>(i)] = pos_of[static_cast<size_t>(group_of[static_cast<size_t>(i)])];
  ctx.set_output(0, std::move(y));
  if (ctx.wants_output(1)) ctx.set_output(1, make_tensor<int64_t>({k}, idx));
  if (ctx.wants_output(2)) ctx.set_output(2, make_tensor<int64_t>({len}, inv));
  if (ctx.wants_output(3)) ctx.set_output(3, make_tensor<int64_t>({k}, cnt));
  return Status::ok();
}

// ---- shape inference: the number of distinct values is data-dependent
Status infer_unique(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  Expr k = ctx.fresh();
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  Expr len = ctx.fresh();
  if (!ctx.node().attr("axis")) {
    ctx.output(0).shape = SymShape{k};
    if (x.shape) len = product(*x.shape);
  } else if (x.shape) {
    auto a = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
    if (!a) return ctx.error("Unique axis out of range");
    SymShape s = *x.shape;
    len = s[static_cast<size_t>(*a)];
    s[static_cast<size_t>(*a)] = k;
    ctx.output(0).shape = s;
  }
  if (ctx.has_output(1)) ctx.output(1) = TypeInfo::tensor(DataType::kInt64, SymShape{k});
  if (ctx.has_output(2)) ctx.output(2) = TypeInfo::tensor(DataType::kInt64, SymShape{len});
  if (ctx.has_output(3)) ctx.output(3) = TypeInfo::tensor(DataType::kInt64, SymShape{k});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Unique, "", "Unique", (std::vector<int>{11}), eval_unique);
ONNXTRIM_REGISTER_INFER(Unique, "", "Unique", infer_unique);
ONNXTRIM_REGISTER_TYPES(Unique, "", "Unique", "T", {{"T", kAllTensorTypesButBFloat16}});

}  // namespace onnxtrim::ops
