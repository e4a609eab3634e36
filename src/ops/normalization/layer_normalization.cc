// LayerNormalization: normalises over the axes [axis, rank); optional Mean and InvStdDev outputs.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_layer_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 2, "LayerNormalization needs inputs X and Scale", 0));
  const Tensor& x = ctx.input(0);
  norm::TrailingAxes t;
  OT_RETURN_IF_ERROR(norm::trailing_axes(ctx, x, &t));
  std::vector<double> scale, bias(static_cast<size_t>(t.inner), 0.0);
  if (!norm::broadcast_param(ctx.input(1), t.norm_dims, &scale))
    return ctx.error("LayerNormalization Scale does not broadcast to X.shape[axis:]");
  if (ctx.has_input(2) && !norm::broadcast_param(ctx.input(2), t.norm_dims, &bias))
    return ctx.error("LayerNormalization B does not broadcast to X.shape[axis:]");
  std::vector<double> v = norm::to_doubles(x);
  std::vector<double> means(static_cast<size_t>(t.outer)), inv(static_cast<size_t>(t.outer));
  bool low = t.stash != DataType::kDouble;  // stage one computed in float
  for (int64_t o = 0; o < t.outer; ++o) {
    double* p = v.data() + o * t.inner;
    double m, is;
    norm::mean_and_inv_std(p, t.inner, t.eps, &m, &is);
    if (low) {
      m = static_cast<float>(m);
      is = static_cast<float>(is);
    }
    means[static_cast<size_t>(o)] = m;
    inv[static_cast<size_t>(o)] = is;
    for (int64_t i = 0; i < t.inner; ++i) {
      double nrm = (p[i] - m) * is;
      if (low) nrm = static_cast<float>(nrm);
      p[i] = nrm * scale[static_cast<size_t>(i)] + bias[static_cast<size_t>(i)];
    }
  }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  Dims stat_dims(x.dims().begin(), x.dims().begin() + t.axis);
  stat_dims.resize(x.dims().size(), 1);
  if (ctx.wants_output(1)) ctx.set_output(1, norm::from_doubles(t.stash, stat_dims, means));
  if (ctx.wants_output(2)) ctx.set_output(2, norm::from_doubles(t.stash, stat_dims, inv));
  return Status::ok();
}

// ---- shape inference
Status infer_layer_normalization(InferContext& ctx) {
  propagate_same(ctx);
  const TypeInfo& x = ctx.input(0);
  for (size_t i = 1; i < 3 && i < ctx.num_outputs(); ++i) {
    if (!ctx.has_output(i)) continue;
    std::optional<SymShape> s;
    if (x.shape) {
      auto axis = normalize_axis(ctx.node().attr_int("axis", -1), x.rank());
      if (!axis) return ctx.error("LayerNormalization axis out of range");
      s = *x.shape;
      for (size_t k = static_cast<size_t>(*axis); k < s->size(); ++k) (*s)[k] = Expr::constant(1);
    }
    auto stash = static_cast<DataType>(ctx.node().attr_int("stash_type", 1));
    ctx.output(i) = TypeInfo::tensor(stash, s);
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LayerNormalization, "", "LayerNormalization", (std::vector<int>{17}), eval_layer_normalization);
ONNXTRIM_REGISTER_INFER(LayerNormalization, "", "LayerNormalization", infer_layer_normalization);
ONNXTRIM_REGISTER_TYPES(LayerNormalization, "", "LayerNormalization", "T T T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
