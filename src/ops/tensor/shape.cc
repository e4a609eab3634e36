// Shape: the dims of the input as int64 (start/end select a range from opset 15).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
std::pair<int64_t, int64_t> range_of(const ir::Node& n, int64_t rank) {
  int64_t start = n.attr_int("start", 0), end = n.attr_int("end", rank);
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  return {clamp(start), clamp(end)};
}

Status eval_shape(KernelContext& ctx) {
  const ir::RuntimeValue* in = ctx.input_value(0);
  if (!in || !in->is_tensor()) return ctx.error("Shape needs a tensor input");
  const Dims& d = in->tensor.dims();
  auto [s, e] = range_of(ctx.node(), static_cast<int64_t>(d.size()));
  std::vector<int64_t> v(d.begin() + s, d.begin() + std::max(s, e));
  ctx.set_output(0, make_tensor<int64_t>({static_cast<int64_t>(v.size())}, v));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_shape(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  if (!x.shape) {
    ctx.output(0) = TypeInfo::tensor(DataType::kInt64, SymShape{ctx.fresh()});
    return Status::ok();
  }
  auto [s, e] = range_of(ctx.node(), x.rank());
  std::vector<Expr> v(x.shape->begin() + s, x.shape->begin() + std::max(s, e));
  ctx.output(0) = TypeInfo::tensor(DataType::kInt64, SymShape{Expr::constant(static_cast<int64_t>(v.size()))});
  ctx.output(0).values = std::move(v);
  return Status::ok();
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Shape, "", "Shape", (std::vector<int>{1, 13, 15, 19, 21, 23, 24, 25}), eval_shape);
ONNXTRIM_REGISTER_INFER(Shape, "", "Shape", infer_shape);

}  // namespace onnxtrim::ops
