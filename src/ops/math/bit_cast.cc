// BitCast: the same bits read as another type of the same width (shape unchanged).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_bit_cast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto to = static_cast<DataType>(ctx.node().attr_int("to", 0));
  if (x.dtype() == DataType::kString || to == DataType::kString || ir::dtype_bits(to) != ir::dtype_bits(x.dtype()) ||
      ir::dtype_bits(to) == 0)
    return ctx.error("BitCast needs non-string types of the same bit width");
  Tensor y = Tensor::shell(to, x.dims());
  y.set_buffer(x.buffer(), x.buffer_offset(), x.byte_size());
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_bit_cast(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = static_cast<DataType>(ctx.node().attr_int("to", 0));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(BitCast, "", "BitCast", (std::vector<int>{26}), eval_bit_cast);
ONNXTRIM_REGISTER_INFER(BitCast, "", "BitCast", infer_bit_cast);
ONNXTRIM_REGISTER_TYPES(BitCast, "", "BitCast", "T1",
                        {{"T1", kNumericTypes | kFloat8Types | kComplexTypes |
                                    type_bits({ir::DataType::kBool, ir::DataType::kFloat4E2M1,
                                               ir::DataType::kFloat8E8M0, ir::DataType::kInt2, ir::DataType::kInt4,
                                               ir::DataType::kUint2, ir::DataType::kUint4})}});

}  // namespace onnxtrim::ops
