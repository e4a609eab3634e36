// ScatterND: writes update slices into a copy of data at the index tuples given by the last
// axis of indices; reduction from opset 16.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_scatter_nd(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  const Tensor& upd = ctx.input(2);
  if (!movable(data.dtype())) return ctx.unsupported("scatter on sub-byte types");
  if (idx.rank() < 1) return ctx.error("ScatterND indices must have rank >= 1");
  int64_t q = idx.dims().back();
  if (q > data.rank()) return ctx.error("ScatterND index tuples are longer than the data rank");
  std::string reduction = ctx.node().attr_string("reduction", "none");
  Tensor y = data;
  y.mutable_bytes();
  if (data.dtype() == DataType::kString) y.strings() = data.strings();
  std::vector<int64_t> ind = to_int64_vector(idx);
  Dims ds = strides_of(data.dims());
  int64_t slice = numel_of(Dims(data.dims().begin() + q, data.dims().end()));
  int64_t tuples = q ? static_cast<int64_t>(ind.size()) / q : 0;
  if (upd.numel() != tuples * slice) return ctx.error("ScatterND updates have the wrong size");
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t k = 0; k < q; ++k) {
      int64_t v = ind[static_cast<size_t>(t * q + k)];
      int64_t d = data.dims()[static_cast<size_t>(k)];
      if (v < -d || v >= d) return ctx.error("ScatterND index out of range");
      if (v < 0) v += d;
      off += v * ds[static_cast<size_t>(k)];
    }
    for (int64_t e = 0; e < slice; ++e) {
      Status st = scatter_combine(y, off + e, upd, t * slice + e, reduction);
      if (!st.is_ok()) return ctx.unsupported(st.detail());
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ScatterND, "", "ScatterND", (std::vector<int>{11, 13, 16, 18}), eval_scatter_nd);
ONNXTRIM_REGISTER_INFER(ScatterND, "", "ScatterND", infer_same);
ONNXTRIM_REGISTER_TYPES(ScatterND, "", "ScatterND", "T indices T",
                        {{"T", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})},
                         {"indices", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
