// Upsample (opsets 7, 9; deprecated in 10): nearest or linear resampling by per-axis scales
// (an attribute in 7, an input from 9), output dims floor(in * scale), with the asymmetric
// coordinate transform (x_in = x_out / scale) and floor rounding for nearest.
#include <cmath>

#include "ops/image/resize_util.h"

namespace onnxtrim::ops {
namespace {

std::optional<std::vector<double>> scales_of(const ir::Node& n, int64_t opset, const Tensor* input) {
  std::vector<double> s;
  if (opset < 9) {
    for (float f : n.attr("scales") ? n.attr("scales")->floats : std::vector<float>{}) s.push_back(f);
  } else {
    if (!input) return std::nullopt;
    for (int64_t i = 0; i < input->numel(); ++i) s.push_back(element_as_double(*input, i));
  }
  return s;
}

// ---- evaluate
Status eval_upsample(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Upsample needs an input");
  const Tensor& x = ctx.input(0);
  auto scales = scales_of(ctx.node(), ctx.opset(), ctx.has_input(1) ? &ctx.input(1) : nullptr);
  if (!scales || static_cast<int64_t>(scales->size()) != x.rank())
    return ctx.error("Upsample needs one scale per axis of the input");
  image::ResizeParams p;
  p.mode = ctx.node().attr_string("mode", "nearest");
  if (p.mode == "bilinear") p.mode = "linear";  // opset 7 spelling
  if (p.mode != "nearest" && p.mode != "linear") return ctx.error("Upsample mode must be nearest or linear");
  p.coord = "asymmetric";
  p.nearest_mode = "floor";
  Dims out = x.dims();
  std::vector<std::optional<std::vector<image::Taps>>> plans(static_cast<size_t>(x.rank()));
  for (size_t a = 0; a < out.size(); ++a) {
    double s = (*scales)[a];
    if (!(s >= 1)) return ctx.error("Upsample scales must be >= 1");
    out[a] = static_cast<int64_t>(std::floor(static_cast<double>(x.dims()[a]) * s));
    if (s != 1.0) plans[a] = image::plan_axis(p, x.dims()[a], out[a], s, 0, 1);
  }
  ctx.set_output(0, image::apply_plans(x, plans, out, 0.0));
  return Status::ok();
}

// ---- shape inference
Status infer_upsample(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape) return Status::ok();
  const ir::Tensor* st = ctx.opset() >= 9 && ctx.has_input(1) ? ctx.input_constant(1) : nullptr;
  auto scales = scales_of(ctx.node(), ctx.opset(), st);
  SymShape out = *x.shape;
  for (size_t a = 0; a < out.size(); ++a) {
    if (!scales || scales->size() != out.size()) {
      out[a] = ctx.fresh();
      continue;
    }
    double s = (*scales)[a];
    if (auto c = out[a].constant_value()) out[a] = dim(static_cast<int64_t>(std::floor(static_cast<double>(*c) * s)));
    else if (s == std::floor(s)) out[a] = out[a] * dim(static_cast<int64_t>(s));
    else out[a] = ctx.fresh();
  }
  ctx.output(0).shape = out;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Upsample, "", "Upsample", (std::vector<int>{7, 9, 10}), eval_upsample);
ONNXTRIM_REGISTER_INFER(Upsample, "", "Upsample", infer_upsample);
ONNXTRIM_REGISTER_TYPES(Upsample, "", "Upsample", "X scales",
                        {{"X", kAllTensorTypesButBFloat16}, {"scales", type_bits({ir::DataType::kFloat})}});

}  // namespace onnxtrim::ops
