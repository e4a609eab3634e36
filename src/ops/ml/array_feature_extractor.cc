// ArrayFeatureExtractor (ai.onnx.ml): selects entries of the last axis of X by the indices Y.
// Output shape: X's leading dims followed by len(Y); a 1-D X gives [1, len(Y)].
#include <cstring>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_array_feature_extractor(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("ArrayFeatureExtractor needs X and Y");
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.rank() < 1) return ctx.error("ArrayFeatureExtractor needs X of rank >= 1");
  std::vector<int64_t> idx = to_int64_vector(y);
  int64_t f = x.dims().back();
  for (int64_t i : idx)
    if (i < 0 || i >= f)
      return ctx.error("ArrayFeatureExtractor index " + std::to_string(i) + " is outside [0, " + std::to_string(f) +
                       ")");
  std::vector<int64_t> dims = x.dims();
  if (dims.size() == 1) dims.insert(dims.begin(), 1);
  dims.back() = static_cast<int64_t>(idx.size());
  Tensor out(x.dtype(), dims);
  int64_t rows = f ? x.numel() / f : 0;
  int64_t k = static_cast<int64_t>(idx.size());
  if (x.dtype() == DataType::kString) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < k; ++j)
        out.strings()[static_cast<size_t>(r * k + j)] = x.strings()[static_cast<size_t>(r * f + idx[j])];
  } else {
    size_t es = static_cast<size_t>(ir::dtype_bits(x.dtype()) / 8);
    if (es == 0)
      return ctx.unsupported("ArrayFeatureExtractor does not take " + std::string(ir::dtype_name(x.dtype())));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < k; ++j)
        std::memcpy(out.mutable_bytes() + (r * k + j) * es, x.bytes() + (r * f + idx[j]) * es, es);
  }
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_array_feature_extractor(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  const TypeInfo& y = ctx.input(1);
  std::optional<SymShape> shape;
  if (x.shape && !x.shape->empty() && y.shape) {
    shape = *x.shape;
    if (shape->size() == 1) shape->insert(shape->begin(), dim(1));
    shape->back() = product(*y.shape);
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, shape);
  return Status::ok();
}

}  // namespace

// ---- registration (versions of the ai.onnx.ml domain)
ONNXTRIM_REGISTER_OP(ArrayFeatureExtractor, "ai.onnx.ml", "ArrayFeatureExtractor", (std::vector<int>{1}),
                     eval_array_feature_extractor);
ONNXTRIM_REGISTER_INFER(ArrayFeatureExtractor, "ai.onnx.ml", "ArrayFeatureExtractor", infer_array_feature_extractor);

}  // namespace onnxtrim::ops
