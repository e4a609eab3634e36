// Size: the number of elements as an int64 scalar.
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_size(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Size needs an input");
  ctx.set_output(0, Tensor::scalar_i64(ctx.input(0).numel()));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_size(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(DataType::kInt64, SymShape{});
  const TypeInfo& x = ctx.input(0);
  if (x.shape) ctx.output(0).values = std::vector<Expr>{product(*x.shape)};
  return Status::ok();
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Size, "", "Size", (std::vector<int>{1, 13, 19, 21, 23, 24, 25}), eval_size);
ONNXTRIM_REGISTER_INFER(Size, "", "Size", infer_size);

}  // namespace onnxtrim::ops
