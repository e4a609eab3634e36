// LayerNormalization: normalises over the axes [axis, rank); optional Mean and InvStdDev outputs.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_layer_normalization(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("LayerNormalization needs inputs X and Scale");
  const Tensor& x = ctx.input(0);
  if (!norm::is_float_type(x.dtype()))
    return ctx.error("LayerNormalization does not support element type " + std::string(ir::dtype_name(x.dtype())));
  const ir::Node& node = ctx.node();
  auto axis = normalize_axis(node.attr_int("axis", -1), x.rank());
  if (!axis) return ctx.error("LayerNormalization axis out of range");
  double eps = node.attr_float("epsilon", 1e-5f);
  int64_t stash = node.attr_int("stash_type", 1);
  auto stash_dt = static_cast<DataType>(stash);
  if (!norm::is_float_type(stash_dt)) return ctx.error("LayerNormalization stash_type must be a float type");
  Dims norm_dims(x.dims().begin() + *axis, x.dims().end());
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d) outer *= x.dims()[static_cast<size_t>(d)];
  int64_t inner = numel_of(norm_dims);
  auto expand = [&](const Tensor& t, std::vector<double>* out) -> bool {
    auto b = broadcast_shapes(t.dims(), norm_dims);
    if (!b || *b != norm_dims) return false;
    std::vector<double> v = norm::to_doubles(t);
    out->resize(static_cast<size_t>(inner));
    BroadcastIndex it(t.dims(), norm_dims);
    for (int64_t i = 0; i < inner; ++i, it.next()) (*out)[static_cast<size_t>(i)] = v[static_cast<size_t>(it.offset())];
    return true;
  };
  std::vector<double> scale, bias(static_cast<size_t>(inner), 0.0);
  if (!expand(ctx.input(1), &scale)) return ctx.error("LayerNormalization Scale does not broadcast to X.shape[axis:]");
  if (ctx.has_input(2) && !expand(ctx.input(2), &bias))
    return ctx.error("LayerNormalization B does not broadcast to X.shape[axis:]");
  std::vector<double> v = norm::to_doubles(x);
  std::vector<double> means(static_cast<size_t>(outer)), inv(static_cast<size_t>(outer));
  bool low = stash_dt != DataType::kDouble;  // stage one computed in float
  for (int64_t o = 0; o < outer; ++o) {
    double* p = v.data() + o * inner;
    double m, is;
    norm::mean_and_inv_std(p, inner, eps, &m, &is);
    if (low) {
      m = static_cast<float>(m);
      is = static_cast<float>(is);
    }
    means[static_cast<size_t>(o)] = m;
    inv[static_cast<size_t>(o)] = is;
    for (int64_t i = 0; i < inner; ++i) {
      double nrm = (p[i] - m) * is;
      if (low) nrm = static_cast<float>(nrm);
      p[i] = nrm * scale[static_cast<size_t>(i)] + bias[static_cast<size_t>(i)];
    }
  }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  Dims stat_dims(x.dims().begin(), x.dims().begin() + *axis);
  stat_dims.resize(x.dims().size(), 1);
  if (ctx.wants_output(1)) ctx.set_output(1, norm::from_doubles(stash_dt, stat_dims, means));
  if (ctx.wants_output(2)) ctx.set_output(2, norm::from_doubles(stash_dt, stat_dims, inv));
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
