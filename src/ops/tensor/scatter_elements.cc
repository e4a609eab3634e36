// ScatterElements: writes updates into a copy of data at the positions that indices give along
// an axis (the other coordinates are the update's own); reduction from opset 16.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_scatter_elements(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  const Tensor& upd = ctx.input(2);
  if (!movable(data.dtype())) return ctx.unsupported("scatter on sub-byte types");
  int64_t r = data.rank();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), r);
  if (!axis || idx.rank() != r || idx.dims() != upd.dims())
    return ctx.error("ScatterElements shapes or axis are invalid");
  std::string reduction = ctx.node().attr_string("reduction", "none");
  Tensor y = data;
  y.mutable_bytes();  // own copy
  if (data.dtype() == DataType::kString) y.strings() = data.strings();
  std::vector<int64_t> ind = to_int64_vector(idx);
  Dims ds = strides_of(data.dims());
  int64_t n = data.dims()[static_cast<size_t>(*axis)];
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  for (size_t i = 0; i < ind.size(); ++i) {
    int64_t v = ind[i];
    if (v < -n || v >= n) return ctx.error("ScatterElements index out of range");
    if (v < 0) v += n;
    int64_t off = 0;
    for (int64_t k = 0; k < r; ++k) off += (k == *axis ? v : c[static_cast<size_t>(k)]) * ds[static_cast<size_t>(k)];
    Status st = scatter_combine(y, off, upd, static_cast<int64_t>(i), reduction);
    if (!st.is_ok()) return ctx.unsupported(st.detail());
    for (int64_t k = r - 1; k >= 0; --k) {
      if (++c[static_cast<size_t>(k)] < idx.dims()[static_cast<size_t>(k)]) break;
      c[static_cast<size_t>(k)] = 0;
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md; Scatter is the opset 9-10 name of the same op)
ONNXTRIM_REGISTER_OP(ScatterElements, "", "ScatterElements", (std::vector<int>{11, 13, 16, 18}), eval_scatter_elements);
ONNXTRIM_REGISTER_INFER(ScatterElements, "", "ScatterElements", infer_same);
ONNXTRIM_REGISTER_TYPES(ScatterElements, "", "ScatterElements", "T Tind T",
                        {{"T", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})},
                         {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_OP(Scatter, "", "Scatter", (std::vector<int>{9, 11}), eval_scatter_elements);
ONNXTRIM_REGISTER_INFER(Scatter, "", "Scatter", infer_same);
ONNXTRIM_REGISTER_TYPES(Scatter, "", "Scatter", "data indices updates",
                        {{"data", kIntTypes | kComplexTypes |
                                      type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                                 ir::DataType::kFloat16, ir::DataType::kString})},
                         {"indices", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})},
                         {"updates", kIntTypes | kComplexTypes |
                                         type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat,
                                                    ir::DataType::kFloat16, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
