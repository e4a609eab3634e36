// The gathers: outputs whose elements are copies of data's elements at the positions that integer
// indices give (negative counts from the end).
// - Gather: whole slices of data along `axis`, one per index; the output's dims are data's with
//   that axis replaced by the indices' dims.
// - GatherElements: one element per index, at the index's own coordinates except along `axis`;
//   the output has the indices' dims.
// - GatherND: the slices that the index tuples of the last axis of indices name, after
//   batch_dims leading axes that data and indices share (batch_dims from opset 12).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_gather(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  if (!movable(data.dtype())) return ctx.unsupported("Gather on sub-byte types");
  int64_t r = data.rank();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), r);
  if (!axis) return ctx.error("Gather axis out of range");
  int64_t n = data.dims()[static_cast<size_t>(*axis)];
  std::vector<int64_t> ind = to_int64_vector(idx);
  for (auto& i : ind) {
    auto w = wrap_index(i, n);
    if (!w) return ctx.error("Gather index " + std::to_string(i) + " out of range");
    i = *w;
  }
  Dims out(data.dims().begin(), data.dims().begin() + *axis);
  out.insert(out.end(), idx.dims().begin(), idx.dims().end());
  out.insert(out.end(), data.dims().begin() + *axis + 1, data.dims().end());
  int64_t outer = numel_of(Dims(data.dims().begin(), data.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(data.dims().begin() + *axis + 1, data.dims().end()));
  Tensor y(data.dtype(), out);
  int64_t k = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : ind) {
      copy_elements(data, (o * n + i) * inner, y, k * inner, inner);
      ++k;
    }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

Status eval_gather_elements(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  if (!movable(data.dtype())) return ctx.unsupported("GatherElements on sub-byte types");
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), data.rank());
  if (!axis || idx.rank() != data.rank()) return ctx.error("GatherElements axis or ranks are invalid");
  std::vector<int64_t> ind = to_int64_vector(idx);
  std::vector<int64_t> index(ind.size());
  OT_RETURN_IF_ERROR(visit_axis_indices(data.dims(), idx.dims(), ind, *axis,
                                        ctx.error("GatherElements index out of range"), [&](size_t i, int64_t off) {
                                          index[i] = off;
                                          return Status::ok();
                                        }));
  ctx.set_output(0, take(data, idx.dims(), index));
  return Status::ok();
}

Status eval_gather_nd(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  if (!movable(data.dtype())) return ctx.unsupported("GatherND on sub-byte types");
  int64_t b = ctx.node().attr_int("batch_dims", 0);
  if (idx.rank() < 1 || b < 0 || b >= idx.rank() || b >= data.rank()) return ctx.error("GatherND ranks are invalid");
  int64_t q = idx.dims().back();
  if (b + q > data.rank()) return ctx.error("GatherND index tuples are too long");
  Dims out(idx.dims().begin(), idx.dims().end() - 1);
  out.insert(out.end(), data.dims().begin() + b + q, data.dims().end());
  int64_t batch = numel_of(Dims(data.dims().begin(), data.dims().begin() + b));
  int64_t per_batch_data = numel_of(Dims(data.dims().begin() + b, data.dims().end()));
  int64_t slice = numel_of(Dims(data.dims().begin() + b + q, data.dims().end()));
  Dims ds = strides_of(Dims(data.dims().begin() + b, data.dims().end()));
  std::vector<int64_t> ind = to_int64_vector(idx);
  int64_t tuples_per_batch = q && batch ? static_cast<int64_t>(ind.size()) / q / batch : 0;
  std::vector<int64_t> src;
  src.reserve(static_cast<size_t>(numel_of(out)));
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t t = 0; t < tuples_per_batch; ++t) {
      auto off = tuple_offset(ind.data() + (bi * tuples_per_batch + t) * q, q, data.dims(), b, ds);
      if (!off) return ctx.error("GatherND index out of range");
      for (int64_t e = 0; e < slice; ++e) src.push_back(bi * per_batch_data + *off + e);
    }
  if (static_cast<int64_t>(src.size()) != numel_of(out)) return ctx.error("GatherND shapes are inconsistent");
  ctx.set_output(0, take(data, out, src));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_gather(InferContext& ctx) {
  const TypeInfo& data = ctx.input(0);
  const TypeInfo& idx = ctx.input(1);
  if (!data.shape || !idx.shape) return unranked_output(ctx, data.elem);
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), data.rank());
  if (!axis) return ctx.error("Gather axis out of range");
  SymShape out(data.shape->begin(), data.shape->begin() + *axis);
  out.insert(out.end(), idx.shape->begin(), idx.shape->end());
  out.insert(out.end(), data.shape->begin() + *axis + 1, data.shape->end());
  ctx.output(0) = TypeInfo::tensor(data.elem, out);
  // Value propagation: gathering from a known 1-D vector with known indices.
  auto ind = ctx.input_ints(1);
  if (data.values && data.rank() == 1 && ind && idx.rank() <= 1) {
    auto n = static_cast<int64_t>(data.values->size());
    std::vector<Expr> v;
    for (int64_t i : *ind) {
      auto w = wrap_index(i, n);
      if (!w) return ctx.error("Gather index " + std::to_string(i) + " out of range");
      v.push_back((*data.values)[static_cast<size_t>(*w)]);
    }
    ctx.output(0).values = std::move(v);
  }
  return Status::ok();
}

Status infer_gather_elements(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(ctx.input(0).elem, ctx.input(1).shape);
  return Status::ok();
}

Status infer_gather_nd(InferContext& ctx) {
  const TypeInfo& d = ctx.input(0);
  const TypeInfo& i = ctx.input(1);
  std::optional<SymShape> s;
  int64_t b = ctx.node().attr_int("batch_dims", 0);
  if (d.shape && i.shape && !i.shape->empty()) {
    if (auto q = i.shape->back().constant_value(); q && b + *q <= d.rank()) {
      s = SymShape(i.shape->begin(), i.shape->end() - 1);
      s->insert(s->end(), d.shape->begin() + b + *q, d.shape->end());
    }
  }
  ctx.output(0) = TypeInfo::tensor(d.elem, s);
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
// A row: data of any tensor type T, indices of `index_types` (the variable `signature` names
// second); every output element is a copy of a data element.
OpRegistration gather_row(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer, const char* signature,
                          const char* index_var, uint64_t index_types) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer,
          .signature = signature,
          .types = {{"T", kAllTensorTypes}, {index_var, index_types}},
          .properties = {OpProperty::kCopiesElements}};
}
const uint64_t kGatherIndexTypes = type_bits({ir::DataType::kInt32, ir::DataType::kInt64});
const OpRegistration kGathers[] = {
    gather_row("Gather", {1, 11, 13}, eval_gather, infer_gather, "T Tind", "Tind", kGatherIndexTypes),
    gather_row("GatherElements", {11, 13}, eval_gather_elements, infer_gather_elements, "T Tind", "Tind",
               kGatherIndexTypes),
    gather_row("GatherND", {11, 12, 13}, eval_gather_nd, infer_gather_nd, "T indices", "indices",
               type_bits({ir::DataType::kInt64})),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Gathers, kGathers);

}  // namespace onnxtrim::ops
