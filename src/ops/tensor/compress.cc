// Compress (9, 11): keeps the slices along `axis` (or the elements of the flattened input when
// no axis) whose condition entry is true; a condition shorter than the axis counts as false.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_compress(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("Compress needs input and condition");
  const Tensor& x = ctx.input(0);
  const Tensor& c = ctx.input(1);
  if (c.rank() != 1 || c.dtype() != DataType::kBool) return ctx.error("Compress condition must be a 1-D bool tensor");
  bool flat = !ctx.node().attr("axis");
  Dims dims = flat ? Dims{x.numel()} : x.dims();
  int64_t axis = 0;
  if (!flat) {
    auto a = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
    if (!a) return ctx.error("Compress axis out of range");
    axis = *a;
  }
  int64_t len = dims[static_cast<size_t>(axis)];
  if (c.numel() > len) return ctx.error("Compress condition is longer than the axis");
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < c.numel(); ++i)
    if (c.bytes()[i]) keep.push_back(i);
  Dims out = dims;
  out[static_cast<size_t>(axis)] = static_cast<int64_t>(keep.size());
  Tensor y(x.dtype(), out);
  int64_t outer = numel_of(Dims(dims.begin(), dims.begin() + axis));
  int64_t inner = numel_of(Dims(dims.begin() + axis + 1, dims.end()));
  int64_t k = static_cast<int64_t>(keep.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < k; ++j)
      tensor::copy_elements(x, (o * len + keep[static_cast<size_t>(j)]) * inner, y, (o * k + j) * inner, inner);
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: the kept count is data-dependent unless the condition is constant
Status infer_compress(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  Expr kept = ctx.fresh();
  if (const ir::Tensor* c = ctx.input_constant(1)) {
    int64_t n = 0;
    for (int64_t i = 0; i < c->numel(); ++i) n += c->bytes()[i] ? 1 : 0;
    kept = dim(n);
  }
  if (!ctx.node().attr("axis")) {
    ctx.output(0).shape = SymShape{kept};
  } else if (x.shape) {
    auto a = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
    if (!a) return ctx.error("Compress axis out of range");
    SymShape s = *x.shape;
    s[static_cast<size_t>(*a)] = kept;
    ctx.output(0).shape = s;
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Compress, "", "Compress", (std::vector<int>{9, 11}), eval_compress);
ONNXTRIM_REGISTER_INFER(Compress, "", "Compress", infer_compress);
ONNXTRIM_REGISTER_TYPES(Compress, "", "Compress", "T T1",
                        {{"T", kAllTensorTypesButBFloat16}, {"T1", type_bits({ir::DataType::kBool})}});

}  // namespace onnxtrim::ops
