// GatherND: slices of data at the index tuples given by the last axis of indices, after
// batch_dims leading axes that data and indices share (batch_dims from opset 12).
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
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
      int64_t off = bi * per_batch_data;
      for (int64_t k = 0; k < q; ++k) {
        int64_t v = ind[static_cast<size_t>((bi * tuples_per_batch + t) * q + k)];
        int64_t d = data.dims()[static_cast<size_t>(b + k)];
        if (v < -d || v >= d) return ctx.error("GatherND index out of range");
        if (v < 0) v += d;
        off += v * ds[static_cast<size_t>(k)];
      }
      for (int64_t e = 0; e < slice; ++e) src.push_back(off + e);
    }
  if (static_cast<int64_t>(src.size()) != numel_of(out)) return ctx.error("GatherND shapes are inconsistent");
  ctx.set_output(0, take(data, out, src));
  return Status::ok();
}

// ---- shape inference
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

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(GatherND, "", "GatherND", (std::vector<int>{11, 12, 13}), eval_gather_nd);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(GatherND, "", "GatherND");
ONNXTRIM_REGISTER_INFER(GatherND, "", "GatherND", infer_gather_nd);
ONNXTRIM_REGISTER_TYPES(GatherND, "", "GatherND", "T indices",
                        {{"T", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})},
                         {"indices", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
