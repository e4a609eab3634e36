// Trilu: keeps the upper (upper=1) or lower triangle of the last two dims, shifted by k.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_trilu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2) return ctx.error("Trilu needs a tensor of rank >= 2");
  if (!movable(x.dtype())) return ctx.unsupported("Trilu on sub-byte types");
  int64_t k = ctx.has_input(1) ? to_int64_vector(ctx.input(1))[0] : 0;
  bool upper = ctx.node().attr_int("upper", 1) != 0;
  int64_t rows = x.dims()[static_cast<size_t>(x.rank() - 2)], cols = x.dims()[static_cast<size_t>(x.rank() - 1)];
  Tensor y(x.dtype(), x.dims());  // zero-filled (strings empty)
  int64_t mats = rows * cols != 0 ? x.numel() / (rows * cols) : 0;
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        bool keep = upper ? j - i >= k : j - i <= k;
        if (keep) copy_elements(x, (m * rows + i) * cols + j, y, (m * rows + i) * cols + j, 1);
      }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Trilu, "", "Trilu", (std::vector<int>{14}), eval_trilu);
ONNXTRIM_REGISTER_INFER(Trilu, "", "Trilu", infer_same);
ONNXTRIM_REGISTER_TYPES(Trilu, "", "Trilu", "T k", {{"T", kAllTensorTypes}, {"k", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
