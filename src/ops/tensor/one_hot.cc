// OneHot: one-hot rows of `depth` values (off, on) along a new axis, for each index.
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_one_hot(KernelContext& ctx) {
  const Tensor& ind = ctx.input(0);
  auto depth = static_cast<int64_t>(element_as_double(ctx.input(1), 0));
  const Tensor& vals = ctx.input(2);
  if (vals.numel() != 2 || depth < 0) return ctx.error("OneHot needs depth >= 0 and two values");
  int64_t r = ind.rank() + 1;
  auto axis = normalize_axis(ctx.node().attr_int("axis", -1), r);
  if (!axis) return ctx.error("OneHot axis out of range");
  Dims out = ind.dims();
  out.insert(out.begin() + *axis, depth);
  Tensor y(vals.dtype(), out);
  int64_t outer = numel_of(Dims(ind.dims().begin(), ind.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(ind.dims().begin() + *axis, ind.dims().end()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t i = 0; i < inner; ++i) {
        auto v = static_cast<int64_t>(element_as_double(ind, o * inner + i));
        if (v < 0) v += depth;
        copy_elements(vals, v == d ? 1 : 0, y, (o * depth + d) * inner + i, 1);
      }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_one_hot(InferContext& ctx) {
  const TypeInfo& ind = ctx.input(0);
  std::optional<SymShape> s;
  if (ind.shape) {
    auto axis = normalize_axis(ctx.node().attr_int("axis", -1), ind.rank() + 1);
    if (axis) {
      s = *ind.shape;
      // depth: a scalar of any numeric type (floats are truncated, as the kernel does).
      const ir::Tensor* d = ctx.input_constant(1);
      auto di = ctx.input_ints(1);
      std::optional<int64_t> depth;
      if (d && d->numel() == 1) depth = static_cast<int64_t>(element_as_double(*d, 0));
      else if (di && di->size() == 1) depth = (*di)[0];
      s->insert(s->begin() + *axis, depth ? Expr::constant(*depth) : ctx.fresh());
    }
  }
  ctx.output(0) = TypeInfo::tensor(ctx.input(2).elem, s);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(OneHot, "", "OneHot", (std::vector<int>{9, 11}), eval_one_hot);
ONNXTRIM_REGISTER_INFER(OneHot, "", "OneHot", infer_one_hot);
ONNXTRIM_REGISTER_TYPES(
    OneHot, "", "OneHot", "T1 T2 T3",
    {{"T1", kIntTypes | type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16})},
     {"T2", kIntTypes | type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16})},
     {"T3", kIntTypes | kComplexTypes |
                type_bits({ir::DataType::kBool, ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16,
                           ir::DataType::kString})}});

}  // namespace onnxtrim::ops
