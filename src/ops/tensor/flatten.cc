// Flatten: to 2-D: [prod(dims before axis), prod(dims from axis)].
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_flatten(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t axis = ctx.node().attr_int("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) return ctx.error("Flatten axis out of range");
  int64_t a = numel_of(Dims(x.dims().begin(), x.dims().begin() + axis));
  ctx.set_output(0, reshaped(x, {a, a ? x.numel() / a : numel_of(Dims(x.dims().begin() + axis, x.dims().end()))}));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_flatten(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  if (!x.shape) {
    ctx.output(0) = TypeInfo::tensor(x.elem, SymShape{ctx.fresh(), ctx.fresh()});
    return Status::ok();
  }
  int64_t axis = ctx.node().attr_int("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) return ctx.error("Flatten axis out of range");
  auto a = static_cast<size_t>(axis);
  ctx.output(0) = TypeInfo::tensor(x.elem, SymShape{product(*x.shape, 0, a), product(*x.shape, a)});
  return Status::ok();
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Flatten, "", "Flatten", (std::vector<int>{1, 9, 11, 13, 21, 23, 24, 25}), eval_flatten);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Flatten, "", "Flatten");
ONNXTRIM_REGISTER_INFER(Flatten, "", "Flatten", infer_flatten);
ONNXTRIM_REGISTER_FOLD(Flatten0, "", "Flatten", "eliminate_nop_ops", tensor::fold_same_shape_to_input);

}  // namespace onnxtrim::ops
