// Expand: broadcasts the input to a shape (numpy rules, both ways).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_expand(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Expand on sub-byte types");
  auto dims = broadcast_shapes(x.dims(), to_int64_vector(ctx.input(1)));
  if (!dims) return ctx.error("Expand: shapes cannot be broadcast");
  std::vector<int64_t> index = take_index(x.dtype(), *dims);
  BroadcastIndex bi(x.dims(), *dims);
  for (auto& i : index) {
    i = bi.offset();
    bi.next();
  }
  ctx.set_output(0, take(x, *dims, index));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_expand(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  const auto& v = ctx.input_values(1);
  if (!x.shape || !v) {
    ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
    return Status::ok();
  }
  SymShape target(v->begin(), v->end());
  bool bad = false;
  auto s = broadcast({&*x.shape, &target}, &bad);
  if (bad) return ctx.error("Expand: shapes cannot be broadcast");
  ctx.output(0) = TypeInfo::tensor(x.elem, s);
  return Status::ok();
}
// ---- local folds
// Output provably the same shape and type as the input -> the input itself
bool fold_nop(ir::Node& n, FoldContext& fc) {
  if (!FoldContext::same_shape(n.input(0), n.output(0))) return false;
  return fc.forward(n, 0, n.input(0));
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Expand, "", "Expand", (std::vector<int>{8, 13}), eval_expand);
ONNXTRIM_REGISTER_INFER(Expand, "", "Expand", infer_expand);
ONNXTRIM_REGISTER_TYPES(Expand, "", "Expand", "T shape",
                        {{"T", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})}, {"shape", type_bits({ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(Expand0, "", "Expand", "eliminate_nop_ops", fold_nop);

}  // namespace onnxtrim::ops
