// NonZero: the coordinates of the non-zero elements, as an int64 [rank, count] tensor.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_non_zero(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (element_as_double(x, i) != 0) hits.push_back(i);
  int64_t r = x.rank();
  Tensor y(DataType::kInt64, {r, static_cast<int64_t>(hits.size())});
  Dims st = strides_of(x.dims());
  for (size_t j = 0; j < hits.size(); ++j) {
    int64_t rest = hits[j];
    for (int64_t k = 0; k < r; ++k) {
      y.mutable_data<int64_t>()[k * static_cast<int64_t>(hits.size()) + static_cast<int64_t>(j)] =
          rest / st[static_cast<size_t>(k)];
      rest %= st[static_cast<size_t>(k)];
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_non_zero(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) =
      TypeInfo::tensor(DataType::kInt64, SymShape{x.shape ? Expr::constant(x.rank()) : ctx.fresh(), ctx.fresh()});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(NonZero, "", "NonZero", (std::vector<int>{9, 13}), eval_non_zero);
ONNXTRIM_REGISTER_INFER(NonZero, "", "NonZero", infer_non_zero);
ONNXTRIM_REGISTER_TYPES(NonZero, "", "NonZero", "T", {{"T", kAllTensorTypes}});

}  // namespace onnxtrim::ops
