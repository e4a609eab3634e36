// Resize (opsets 10, 11, 13, 18, 19): nearest / linear / cubic resampling of the axes given by
// `axes` (all by default) to `sizes` or by `scales`. Opset 10 has inputs (X, scales), the
// asymmetric coordinate transform and floor rounding for nearest; from 11 the inputs are
// (X, roi, scales, sizes) with coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
// exclude_outside and extrapolation_value; 18 adds axes, keep_aspect_ratio_policy and
// antialias. See resize_util.h for the sampling.
#include <cmath>

#include "ops/fold.h"
#include "ops/image/resize_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

image::ResizeParams params_of(const ir::Node& n, int64_t opset) {
  image::ResizeParams p;
  p.mode = n.attr_string("mode", "nearest");
  if (opset < 11) {
    p.coord = "asymmetric";
    p.nearest_mode = "floor";
    return p;
  }
  p.coord = n.attr_string("coordinate_transformation_mode", "half_pixel");
  p.nearest_mode = n.attr_string("nearest_mode", "round_prefer_floor");
  p.cubic_a = n.attr_float("cubic_coeff_a", -0.75f);
  p.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
  p.antialias = opset >= 18 && n.attr_int("antialias", 0) != 0;
  p.extrapolation = n.attr_float("extrapolation_value", 0.0f);
  return p;
}

// The resized axes (normalised) of a rank-r input.
std::optional<std::vector<int64_t>> axes_of(const ir::Node& n, int64_t opset, int64_t rank) {
  return tensor::axes_attr_or_all(n, rank, opset >= 18);
}

size_t scales_input(int64_t opset) { return opset < 11 ? 1 : 2; }

// Output sizes and per-axis scales from the scales or sizes input.
Status output_plan(KernelContext& ctx, const image::ResizeParams& p, const std::vector<int64_t>& axes, Dims* out,
                   std::vector<double>* scales, std::vector<double>* roi) {
  const Tensor& x = ctx.input(0);
  size_t k = axes.size();
  *out = x.dims();
  scales->assign(static_cast<size_t>(x.rank()), 1.0);
  roi->clear();
  if (ctx.opset() >= 11 && ctx.has_input(1) && ctx.input(1).numel() > 0 && p.coord == "tf_crop_and_resize") {
    const Tensor& r = ctx.input(1);
    if (static_cast<size_t>(r.numel()) != 2 * k) return ctx.error("Resize roi must have 2 values per resized axis");
    for (int64_t i = 0; i < r.numel(); ++i) roi->push_back(element_as_double(r, i));
  }
  size_t si = scales_input(ctx.opset());
  bool has_scales = ctx.has_input(si) && ctx.input(si).numel() > 0;
  bool has_sizes = ctx.opset() >= 11 && ctx.has_input(3) && ctx.input(3).numel() > 0;
  if (has_scales == has_sizes) return ctx.error("Resize needs exactly one of scales and sizes");
  if (has_scales) {
    const Tensor& s = ctx.input(si);
    if (static_cast<size_t>(s.numel()) != k) return ctx.error("Resize scales must have one value per resized axis");
    for (size_t i = 0; i < k; ++i) {
      double sc = element_as_double(s, static_cast<int64_t>(i));
      if (!(sc > 0)) return ctx.error("Resize scales must be positive");
      auto a = static_cast<size_t>(axes[i]);
      (*scales)[a] = sc;
      double span = roi->empty() ? 1.0 : (*roi)[k + i] - (*roi)[i];
      (*out)[a] = static_cast<int64_t>(std::floor(static_cast<double>(x.dims()[a]) * span * sc));
    }
    return Status::ok();
  }
  std::vector<int64_t> sizes = to_int64_vector(ctx.input(3));
  if (sizes.size() != k) return ctx.error("Resize sizes must have one value per resized axis");
  std::string policy = ctx.opset() >= 18 ? ctx.node().attr_string("keep_aspect_ratio_policy", "stretch") : "stretch";
  if (policy == "stretch") {
    for (size_t i = 0; i < k; ++i) {
      auto a = static_cast<size_t>(axes[i]);
      if (sizes[i] < 0) return ctx.error("Resize sizes must be non-negative");
      (*out)[a] = sizes[i];
      (*scales)[a] = x.dims()[a] ? static_cast<double>(sizes[i]) / static_cast<double>(x.dims()[a]) : 1.0;
    }
    return Status::ok();
  }
  if (policy != "not_larger" && policy != "not_smaller")
    return ctx.error("Resize keep_aspect_ratio_policy must be stretch, not_larger or not_smaller");
  double common = policy == "not_larger" ? INFINITY : 0.0;
  for (size_t i = 0; i < k; ++i) {
    double r = static_cast<double>(sizes[i]) / static_cast<double>(x.dims()[static_cast<size_t>(axes[i])]);
    common = policy == "not_larger" ? std::min(common, r) : std::max(common, r);
  }
  for (size_t i = 0; i < k; ++i) {
    auto a = static_cast<size_t>(axes[i]);
    (*out)[a] = static_cast<int64_t>(std::floor(common * static_cast<double>(x.dims()[a]) + 0.5));
    (*scales)[a] = common;
  }
  return Status::ok();
}

// ---- evaluate
Status eval_resize(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Resize needs an input");
  const Tensor& x = ctx.input(0);
  image::ResizeParams p = params_of(ctx.node(), ctx.opset());
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic")
    return ctx.error("Resize mode must be nearest, linear or cubic, not '" + p.mode + "'");
  if (p.mode != "nearest" && !ir::dtype_is_float(x.dtype()) && !ir::dtype_is_integer(x.dtype()))
    return ctx.error("Resize " + p.mode + " mode takes numeric tensors");
  auto axes = axes_of(ctx.node(), ctx.opset(), x.rank());
  if (!axes) return ctx.error("Resize axes out of range");
  Dims out;
  std::vector<double> scales, roi;
  OT_RETURN_IF_ERROR(output_plan(ctx, p, *axes, &out, &scales, &roi));
  std::vector<std::optional<std::vector<image::Taps>>> plans(static_cast<size_t>(x.rank()));
  for (size_t i = 0; i < axes->size(); ++i) {
    auto a = static_cast<size_t>((*axes)[i]);
    double rs = roi.empty() ? 0.0 : roi[i], re = roi.empty() ? 1.0 : roi[axes->size() + i];
    if (x.dims()[a] == 0 && out[a] > 0) return ctx.error("Resize cannot resample an empty axis");
    plans[a] = image::plan_axis(p, x.dims()[a], out[a], scales[a], rs, re);
  }
  ctx.set_output(0, image::apply_plans(x, plans, out, p.extrapolation));
  return Status::ok();
}

// ---- shape inference
Status infer_resize(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape) return Status::ok();
  auto axes = axes_of(ctx.node(), ctx.opset(), x.rank());
  if (!axes) return ctx.error("Resize axes out of range");
  SymShape out = *x.shape;
  size_t si = scales_input(ctx.opset());
  bool tf_crop = ctx.node().attr_string("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize";
  std::string policy = ctx.opset() >= 18 ? ctx.node().attr_string("keep_aspect_ratio_policy", "stretch") : "stretch";
  const ir::Tensor* scales = ctx.has_input(si) ? ctx.input_constant(si) : nullptr;
  if (scales && scales->numel() > 0 && !tf_crop && static_cast<size_t>(scales->numel()) == axes->size()) {
    for (size_t i = 0; i < axes->size(); ++i) {
      double s = element_as_double(*scales, static_cast<int64_t>(i));
      Expr& d = out[static_cast<size_t>((*axes)[i])];
      if (auto c = d.constant_value()) d = dim(static_cast<int64_t>(std::floor(static_cast<double>(*c) * s)));
      else if (s == std::floor(s) && s >= 1) d = d * dim(static_cast<int64_t>(s));
      else if (s > 0 && 1.0 / s == std::floor(1.0 / s)) d = Expr::floordiv(d, dim(static_cast<int64_t>(1.0 / s)));
      else d = ctx.fresh();
    }
  } else if (ctx.opset() >= 11 && ctx.has_input(3) && policy == "stretch" && ctx.input_values(3) &&
             ctx.input_values(3)->size() == axes->size()) {
    for (size_t i = 0; i < axes->size(); ++i) out[static_cast<size_t>((*axes)[i])] = (*ctx.input_values(3))[i];
  } else {
    // Known only at run time (or through the aspect-ratio policy): computed when all is static.
    auto st = x.static_shape();
    auto sizes = ctx.opset() >= 11 && ctx.has_input(3) ? ctx.input_ints(3) : std::nullopt;
    if (st && sizes && !sizes->empty() && sizes->size() == axes->size() && policy != "stretch") {
      double common = policy == "not_larger" ? INFINITY : 0.0;
      for (size_t i = 0; i < axes->size(); ++i) {
        double r = static_cast<double>((*sizes)[i]) / static_cast<double>((*st)[static_cast<size_t>((*axes)[i])]);
        common = policy == "not_larger" ? std::min(common, r) : std::max(common, r);
      }
      for (size_t i = 0; i < axes->size(); ++i) {
        auto a = static_cast<size_t>((*axes)[i]);
        out[a] = dim(static_cast<int64_t>(std::floor(common * static_cast<double>((*st)[a]) + 0.5)));
      }
    } else if (st && scales && scales->numel() > 0 && static_cast<size_t>(scales->numel()) == axes->size() && tf_crop) {
      const ir::Tensor* roi = ctx.input_constant(1);
      if (!roi || static_cast<size_t>(roi->numel()) != 2 * axes->size()) {
        for (int64_t a : *axes) out[static_cast<size_t>(a)] = ctx.fresh();
      } else {
        for (size_t i = 0; i < axes->size(); ++i) {
          auto a = static_cast<size_t>((*axes)[i]);
          double span = element_as_double(*roi, static_cast<int64_t>(axes->size() + i)) -
                        element_as_double(*roi, static_cast<int64_t>(i));
          out[a] = dim(static_cast<int64_t>(
              std::floor(static_cast<double>((*st)[a]) * span * element_as_double(*scales, static_cast<int64_t>(i)))));
        }
      }
    } else {
      for (int64_t a : *axes) out[static_cast<size_t>(a)] = ctx.fresh();
    }
  }
  ctx.output(0).shape = out;
  return Status::ok();
}

// ---- local folds
// Resize to the input's own size -> x, where that is exact: every resized axis keeps its length
// (all scales 1, or sizes equal to the input dims, proved symbolically), and the sampling then
// reads each input element exactly: nearest with a transform that maps i to i at scale 1, or
// linear/cubic with such a transform (weights collapse to 1 on the element itself).
bool fold_resize_nop(ir::Node& n, FoldContext& fc) {
  const ir::Value* x = n.input(0);
  const ir::Value* y = n.output(0);
  if (!x || !y || !x->type.is_tensor() || !x->type.has_shape) return false;
  int64_t opset = n.graph() && n.graph()->model() ? n.graph()->model()->opset("") : 0;
  std::string coord = opset < 11 ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  // tf_crop_and_resize samples a region of interest, and tf_half_pixel_for_nn samples at
  // i + 0.5 even at scale 1: neither is the identity.
  if (coord == "tf_crop_and_resize" || coord == "tf_half_pixel_for_nn") return false;
  if (!y->type.is_tensor() || !y->type.has_shape || y->type.dims.size() != x->type.dims.size()) return false;
  for (size_t i = 0; i < x->type.dims.size(); ++i) {
    const ir::Dim& a = x->type.dims[i];
    const ir::Dim& b = y->type.dims[i];
    bool same = (a.is_known() && b.is_known() && *a.value == *b.value) || (!a.param.empty() && a.param == b.param);
    if (!same) return false;
  }
  // Scales, when given, must all be exactly 1 (a scale != 1 with an equal floor size would
  // sample off-grid).
  size_t si = scales_input(opset);
  if (si < n.num_inputs() && n.input(si)) {
    const ir::Tensor* s = fc.constant(n.input(si));
    if (!s) return false;
    for (int64_t i = 0; i < s->numel(); ++i)
      if (element_as_double(*s, i) != 1.0) return false;
  }
  // Sizes equal to the input dims give scale 1 on every axis (the shapes above), also under
  // keep_aspect_ratio_policy; at scale 1 the antialias filter is the plain one.
  return fc.forward(n, 0, n.input(0));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Resize, "", "Resize", (std::vector<int>{10, 11, 13, 18, 19}), eval_resize);
ONNXTRIM_REGISTER_INFER(Resize, "", "Resize", infer_resize);
ONNXTRIM_REGISTER_TYPES(Resize, "", "Resize", "T1 T2 scales sizes",
                        {{"T1", kAllTensorTypes},
                         {"T2", type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16})},
                         {"scales", type_bits({ir::DataType::kFloat})},
                         {"sizes", type_bits({ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(ResizeNop, "", "Resize", "eliminate_nop_ops", fold_resize_nop);

}  // namespace onnxtrim::ops
