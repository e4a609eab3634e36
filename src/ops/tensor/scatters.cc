// The scatters: a copy of data in which updates are written at the positions that integer indices
// give (negative counts from the end), or combined with the data there by the reduction attribute
// (add, mul, max, min; from opset 16). The output has data's type and shape.
// - ScatterElements (Scatter in opsets 9 and 10): one update per index, at the index's own
//   coordinates except along `axis`; indices and updates have one shape.
// - ScatterND: update slices at the index tuples of the last axis of indices.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
// A scatter's operands, read in this order; data must be of a type whose elements can be moved.
struct ScatterOperands {
  const Tensor& data;
  const Tensor& idx;
  const Tensor& upd;
};
Result<ScatterOperands> scatter_operands(const KernelContext& ctx) {
  ScatterOperands s{ctx.input(0), ctx.input(1), ctx.input(2)};
  if (!movable(s.data.dtype())) return ctx.unsupported("scatter on sub-byte types");
  return s;
}
// What a scatter writes into: a copy of data that owns its bytes (and strings).
Tensor scatter_target(const Tensor& data) {
  Tensor y = data;
  y.mutable_bytes();  // own copy
  if (data.dtype() == DataType::kString) y.strings() = data.strings();
  return y;
}
// Update element `src` written into (or combined with) element `dst` of y.
Status scatter_update(const KernelContext& ctx, Tensor& y, int64_t dst, const Tensor& upd, int64_t src,
                      const std::string& reduction) {
  Status st = scatter_combine(y, dst, upd, src, reduction);
  if (!st.is_ok()) return ctx.unsupported(st.detail());
  return Status::ok();
}

Status eval_scatter_elements(KernelContext& ctx) {
  Result<ScatterOperands> s = scatter_operands(ctx);
  if (!s) return s.status();
  // Named references, not a structured binding: the lambda below reads `upd`, and clang 14
  // (the web build's compiler) cannot capture a structured binding.
  const Tensor& data = s->data;
  const Tensor& idx = s->idx;
  const Tensor& upd = s->upd;
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), data.rank());
  if (!axis || idx.rank() != data.rank() || idx.dims() != upd.dims())
    return ctx.error("ScatterElements shapes or axis are invalid");
  std::string reduction = ctx.node().attr_string("reduction", "none");
  Tensor y = scatter_target(data);
  std::vector<int64_t> ind = to_int64_vector(idx);
  OT_RETURN_IF_ERROR(visit_axis_indices(
      data.dims(), idx.dims(), ind, *axis, ctx.error("ScatterElements index out of range"),
      [&](size_t i, int64_t off) { return scatter_update(ctx, y, off, upd, static_cast<int64_t>(i), reduction); }));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

Status eval_scatter_nd(KernelContext& ctx) {
  Result<ScatterOperands> s = scatter_operands(ctx);
  if (!s) return s.status();
  const auto& [data, idx, upd] = *s;
  if (idx.rank() < 1) return ctx.error("ScatterND indices must have rank >= 1");
  int64_t q = idx.dims().back();
  if (q > data.rank()) return ctx.error("ScatterND index tuples are longer than the data rank");
  std::string reduction = ctx.node().attr_string("reduction", "none");
  Tensor y = scatter_target(data);
  std::vector<int64_t> ind = to_int64_vector(idx);
  Dims ds = strides_of(data.dims());
  int64_t slice = numel_of(Dims(data.dims().begin() + q, data.dims().end()));
  int64_t tuples = q ? static_cast<int64_t>(ind.size()) / q : 0;
  if (upd.numel() != tuples * slice) return ctx.error("ScatterND updates have the wrong size");
  for (int64_t t = 0; t < tuples; ++t) {
    auto off = tuple_offset(ind.data() + t * q, q, data.dims(), 0, ds);
    if (!off) return ctx.error("ScatterND index out of range");
    for (int64_t e = 0; e < slice; ++e)
      OT_RETURN_IF_ERROR(scatter_update(ctx, y, *off + e, upd, t * slice + e, reduction));
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md; Scatter is the opset 9-10 name of ScatterElements)
const OpRegistration kScatters[] = {
    {.op_type = "ScatterElements",
     .versions = {11, 13, 16, 18},
     .eval = eval_scatter_elements,
     .infer = infer_same,
     .signature = "T Tind T",
     .types = {{"T", kAllTensorTypes}, {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}}},
    {.op_type = "Scatter",
     .versions = {9, 11},
     .eval = eval_scatter_elements,
     .infer = infer_same,
     .signature = "data indices updates",
     .types = {{"data", kAllTensorTypesButBFloat16},
               {"indices", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})},
               {"updates", kAllTensorTypesButBFloat16}}},
    {.op_type = "ScatterND",
     .versions = {11, 13, 16, 18},
     .eval = eval_scatter_nd,
     .infer = infer_same,
     .signature = "T indices T",
     .types = {{"T", kAllTensorTypes}, {"indices", type_bits({ir::DataType::kInt64})}}},
};
ONNXTRIM_REGISTER_OPS(Scatters, kScatters);

}  // namespace onnxtrim::ops
