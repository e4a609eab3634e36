// RMSNormalization: y = x / sqrt(mean(x^2 over [axis, rank)) + eps) * scale.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_rms_normalization(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("RMSNormalization needs inputs X and scale");
  const Tensor& x = ctx.input(0);
  if (!norm::is_float_type(x.dtype()))
    return ctx.error("RMSNormalization does not support element type " + std::string(ir::dtype_name(x.dtype())));
  const ir::Node& node = ctx.node();
  auto axis = normalize_axis(node.attr_int("axis", -1), x.rank());
  if (!axis) return ctx.error("RMSNormalization axis out of range");
  double eps = node.attr_float("epsilon", 1e-5f);
  auto st = static_cast<DataType>(node.attr_int("stash_type", 1));
  if (!norm::is_float_type(st)) return ctx.error("RMSNormalization stash_type must be a float type");
  bool low = st != DataType::kDouble;
  Dims norm_dims(x.dims().begin() + *axis, x.dims().end());
  int64_t inner = numel_of(norm_dims);
  int64_t outer = inner ? x.numel() / inner : 0;
  const Tensor& st_t = ctx.input(1);
  auto b = broadcast_shapes(st_t.dims(), norm_dims);
  if (!b || *b != norm_dims) return ctx.error("RMSNormalization scale does not broadcast to X.shape[axis:]");
  std::vector<double> sv = norm::to_doubles(st_t), scale(static_cast<size_t>(inner));
  BroadcastIndex it(st_t.dims(), norm_dims);
  for (int64_t i = 0; i < inner; ++i, it.next()) scale[static_cast<size_t>(i)] = sv[static_cast<size_t>(it.offset())];
  std::vector<double> v = norm::to_doubles(x);
  for (int64_t o = 0; o < outer; ++o) {
    double* p = v.data() + o * inner;
    double q = 0;
    for (int64_t i = 0; i < inner; ++i) q += p[i] * p[i];
    double inv = 1.0 / std::sqrt(q / static_cast<double>(inner) + eps);
    for (int64_t i = 0; i < inner; ++i) {
      double nrm = p[i] * inv;
      if (low) nrm = static_cast<float>(nrm);
      p[i] = nrm * scale[static_cast<size_t>(i)];
    }
  }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(RMSNormalization, "", "RMSNormalization", (std::vector<int>{23}), eval_rms_normalization);
ONNXTRIM_REGISTER_INFER(RMSNormalization, "", "RMSNormalization", infer_same);
ONNXTRIM_REGISTER_TYPES(RMSNormalization, "", "RMSNormalization", "T V", {{"T", kFloatTypes}, {"V", kFloatTypes}});

}  // namespace onnxtrim::ops
