// GatherElements: each output element reads the data element whose coordinate along `axis` is
// the matching index (negative allowed) and whose other coordinates are its own.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_gather_elements(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  if (!movable(data.dtype())) return ctx.unsupported("GatherElements on sub-byte types");
  int64_t r = data.rank();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), r);
  if (!axis || idx.rank() != r) return ctx.error("GatherElements axis or ranks are invalid");
  std::vector<int64_t> ind = to_int64_vector(idx);
  Dims ds = strides_of(data.dims());
  int64_t n = data.dims()[static_cast<size_t>(*axis)];
  std::vector<int64_t> index(ind.size());
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  for (size_t i = 0; i < ind.size(); ++i) {
    int64_t v = ind[i];
    if (v < -n || v >= n) return ctx.error("GatherElements index out of range");
    if (v < 0) v += n;
    int64_t off = 0;
    for (int64_t k = 0; k < r; ++k) off += (k == *axis ? v : c[static_cast<size_t>(k)]) * ds[static_cast<size_t>(k)];
    index[i] = off;
    for (int64_t k = r - 1; k >= 0; --k) {
      if (++c[static_cast<size_t>(k)] < idx.dims()[static_cast<size_t>(k)]) break;
      c[static_cast<size_t>(k)] = 0;
    }
  }
  ctx.set_output(0, take(data, idx.dims(), index));
  return Status::ok();
}

// ---- shape inference
Status infer_gather_elements(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(ctx.input(0).elem, ctx.input(1).shape);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(GatherElements, "", "GatherElements", (std::vector<int>{11, 13}), eval_gather_elements);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(GatherElements, "", "GatherElements");
ONNXTRIM_REGISTER_INFER(GatherElements, "", "GatherElements", infer_gather_elements);
ONNXTRIM_REGISTER_TYPES(GatherElements, "", "GatherElements", "T Tind",
                        {{"T", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})},
                         {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
