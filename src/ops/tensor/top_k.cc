// TopK: the k largest (or smallest) elements along an axis, with their int64 indices; ties
// keep the lower index first (k as an attribute before opset 10, an input after).
#include <algorithm>
#include <numeric>

#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_top_k(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t k = ctx.opset() < 10 ? ctx.node().attr_int("k", 0) : to_int64_vector(ctx.input(1)).at(0);
  auto axis = normalize_axis(ctx.node().attr_int("axis", -1), x.rank());
  if (!axis) return ctx.error("TopK axis out of range");
  bool largest = ctx.node().attr_int("largest", 1) != 0;
  int64_t n = x.dims()[static_cast<size_t>(*axis)];
  if (k < 0 || k > n) return ctx.error("TopK k is out of range");
  Dims out = x.dims();
  out[static_cast<size_t>(*axis)] = k;
  int64_t outer = numel_of(Dims(x.dims().begin(), x.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(x.dims().begin() + *axis + 1, x.dims().end()));
  Tensor idx(DataType::kInt64, out);
  std::vector<int64_t> src(static_cast<size_t>(numel_of(out)));
  std::vector<double> key(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < n; ++j) key[static_cast<size_t>(j)] = element_as_double(x, (o * n + j) * inner + i);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        double va = key[static_cast<size_t>(a)], vb = key[static_cast<size_t>(b)];
        return largest ? va > vb : va < vb;
      });
      for (int64_t j = 0; j < k; ++j) {
        int64_t dst = (o * k + j) * inner + i;
        idx.mutable_data<int64_t>()[dst] = order[static_cast<size_t>(j)];
        src[static_cast<size_t>(dst)] = (o * n + order[static_cast<size_t>(j)]) * inner + i;
      }
    }
  ctx.set_output(0, take(x, out, src));
  ctx.set_output(1, std::move(idx));
  return Status::ok();
}

// ---- shape inference
Status infer_top_k(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<SymShape> s;
  if (x.shape) {
    auto axis = normalize_axis(ctx.node().attr_int("axis", -1), x.rank());
    if (!axis) return ctx.error("TopK axis out of range");
    s = *x.shape;
    std::optional<std::vector<int64_t>> k =
        ctx.opset() < 10 ? std::optional(std::vector<int64_t>{ctx.node().attr_int("k", 0)}) : ctx.input_ints(1);
    (*s)[static_cast<size_t>(*axis)] = k && k->size() == 1 ? Expr::constant((*k)[0]) : ctx.fresh();
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, s);
  if (ctx.has_output(1)) ctx.output(1) = TypeInfo::tensor(DataType::kInt64, s);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(TopK, "", "TopK", (std::vector<int>{1, 10, 11, 24}), eval_top_k);
ONNXTRIM_REGISTER_INFER(TopK, "", "TopK", infer_top_k);
ONNXTRIM_REGISTER_TYPES(TopK, "", "TopK", "T K", {{"T", kNumericTypes}, {"K", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
