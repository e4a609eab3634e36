// StringConcat (20): elementwise X + Y of string tensors, with multidirectional broadcasting.
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_string_concat(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("StringConcat needs X and Y");
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.dtype() != DataType::kString || y.dtype() != DataType::kString)
    return ctx.error("StringConcat takes string tensors");
  auto dims = broadcast_shapes(x.dims(), y.dims());
  if (!dims) return ctx.error("StringConcat input shapes cannot be broadcast");
  Tensor z(DataType::kString, *dims);
  BroadcastIndex ix(x.dims(), *dims), iy(y.dims(), *dims);
  for (int64_t i = 0; i < z.numel(); ++i, ix.next(), iy.next())
    z.strings()[static_cast<size_t>(i)] =
        x.strings()[static_cast<size_t>(ix.offset())] + y.strings()[static_cast<size_t>(iy.offset())];
  ctx.set_output(0, std::move(z));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(StringConcat, "", "StringConcat", (std::vector<int>{20}), eval_string_concat);
ONNXTRIM_REGISTER_INFER(StringConcat, "", "StringConcat",
                        [](InferContext& ctx) { return infer_broadcast(ctx, DataType::kString); });
ONNXTRIM_REGISTER_TYPES(StringConcat, "", "StringConcat", "T T", {{"T", type_bits({ir::DataType::kString})}});

}  // namespace onnxtrim::ops
