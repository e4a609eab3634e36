// Gather: takes slices of data along an axis at the given (possibly negative) indices.
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_gather(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  if (!movable(data.dtype())) return ctx.unsupported("Gather on sub-byte types");
  int64_t r = data.rank();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), r);
  if (!axis) return ctx.error("Gather axis out of range");
  int64_t n = data.dims()[static_cast<size_t>(*axis)];
  std::vector<int64_t> ind = to_int64_vector(idx);
  for (auto& i : ind) {
    if (i < -n || i >= n) return ctx.error("Gather index " + std::to_string(i) + " out of range");
    if (i < 0) i += n;
  }
  Dims out(data.dims().begin(), data.dims().begin() + *axis);
  out.insert(out.end(), idx.dims().begin(), idx.dims().end());
  out.insert(out.end(), data.dims().begin() + *axis + 1, data.dims().end());
  int64_t outer = numel_of(Dims(data.dims().begin(), data.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(data.dims().begin() + *axis + 1, data.dims().end()));
  Tensor y(data.dtype(), out);
  int64_t k = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : ind) {
      copy_elements(data, (o * n + i) * inner, y, k * inner, inner);
      ++k;
    }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_gather(InferContext& ctx) {
  const TypeInfo& data = ctx.input(0);
  const TypeInfo& idx = ctx.input(1);
  if (!data.shape || !idx.shape) {
    ctx.output(0) = TypeInfo::tensor(data.elem, std::nullopt);
    return Status::ok();
  }
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), data.rank());
  if (!axis) return ctx.error("Gather axis out of range");
  SymShape out(data.shape->begin(), data.shape->begin() + *axis);
  out.insert(out.end(), idx.shape->begin(), idx.shape->end());
  out.insert(out.end(), data.shape->begin() + *axis + 1, data.shape->end());
  ctx.output(0) = TypeInfo::tensor(data.elem, out);
  // Value propagation: gathering from a known 1-D vector with known indices.
  auto ind = ctx.input_ints(1);
  if (data.values && data.rank() == 1 && ind && idx.rank() <= 1) {
    auto n = static_cast<int64_t>(data.values->size());
    std::vector<Expr> v;
    for (int64_t i : *ind) {
      if (i < -n || i >= n) return ctx.error("Gather index " + std::to_string(i) + " out of range");
      v.push_back((*data.values)[static_cast<size_t>(i < 0 ? i + n : i)]);
    }
    ctx.output(0).values = std::move(v);
  }
  return Status::ok();
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Gather, "", "Gather", (std::vector<int>{1, 11, 13}), eval_gather);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Gather, "", "Gather");
ONNXTRIM_REGISTER_INFER(Gather, "", "Gather", infer_gather);
ONNXTRIM_REGISTER_TYPES(Gather, "", "Gather", "T Tind",
                        {{"T", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})},
                         {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
