// CenterCropPad (18): crops or zero-pads the given axes (all by default) to `shape`, centred:
// a crop starts at floor((in - out) / 2), a pad puts floor((out - in) / 2) before (the odd
// element goes after).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

std::optional<std::vector<int64_t>> axes_of(const ir::Node& n, int64_t rank, size_t count) {
  auto axes = tensor::axes_attr_or_all(n, rank);
  if (!axes || axes->size() != count) return std::nullopt;
  return axes;
}

// ---- evaluate
Status eval_center_crop_pad(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("CenterCropPad needs input_data and shape");
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> shape = to_int64_vector(ctx.input(1));
  auto axes = axes_of(ctx.node(), x.rank(), shape.size());
  if (!axes) return ctx.error("CenterCropPad shape must have one value per axis");
  Dims out = x.dims();
  Dims offset(static_cast<size_t>(x.rank()), 0);  // input index = output index + offset
  for (size_t i = 0; i < axes->size(); ++i) {
    auto a = static_cast<size_t>((*axes)[i]);
    if (shape[i] < 0) return ctx.error("CenterCropPad shape must be non-negative");
    int64_t in = x.dims()[a];
    out[a] = shape[i];
    offset[a] = in >= shape[i] ? (in - shape[i]) / 2 : -((shape[i] - in) / 2);
  }
  Tensor y(x.dtype(), out);
  Dims in_strides = strides_of(x.dims());
  Dims idx(out.size(), 0);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t src = 0;
    bool inside = true;
    for (size_t a = 0; a < out.size(); ++a) {
      int64_t i = idx[a] + offset[a];
      if (i < 0 || i >= x.dims()[a]) inside = false;
      src += i * in_strides[a];
    }
    if (inside) tensor::copy_elements(x, src, y, o, 1);
    for (size_t a = out.size(); a-- > 0;) {
      if (++idx[a] < out[a]) break;
      idx[a] = 0;
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_center_crop_pad(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape) return Status::ok();
  SymShape out = *x.shape;
  const auto& vals = ctx.input_values(1);
  auto n =
      ctx.input(1).shape && ctx.input(1).shape->size() == 1 ? (*ctx.input(1).shape)[0].constant_value() : std::nullopt;
  size_t count = vals ? vals->size() : n ? static_cast<size_t>(*n) : 0;
  auto axes = axes_of(ctx.node(), x.rank(), count);
  if (!axes) {
    for (auto& d : out) d = ctx.fresh();
  } else {
    for (size_t i = 0; i < axes->size(); ++i) out[static_cast<size_t>((*axes)[i])] = vals ? (*vals)[i] : ctx.fresh();
  }
  ctx.output(0).shape = out;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(CenterCropPad, "", "CenterCropPad", (std::vector<int>{18}), eval_center_crop_pad);
ONNXTRIM_REGISTER_INFER(CenterCropPad, "", "CenterCropPad", infer_center_crop_pad);
ONNXTRIM_REGISTER_TYPES(CenterCropPad, "", "CenterCropPad", "T Tind",
                        {{"T", kAllTensorTypes}, {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
