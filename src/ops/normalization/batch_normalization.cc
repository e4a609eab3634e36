// BatchNormalization: inference with running statistics; training mode (training_mode from
// opset 14, is_test = 0 before opset 7, statistics outputs requested in between) uses the
// batch statistics and also returns the updated running mean and variance.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_batch_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 5, "BatchNormalization needs 5 inputs", 0));
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2 && !(x.rank() == 1 && ctx.opset() >= 9))
    return ctx.error("BatchNormalization input must have rank >= 2");
  for (size_t i = 1; i < 5; ++i)
    if (!norm::is_float_type(ctx.input(i).dtype()))
      return ctx.error("BatchNormalization parameters must be floating point");
  const ir::Node& node = ctx.node();
  double eps = node.attr_float("epsilon", 1e-5f);
  double momentum = node.attr_float("momentum", 0.9f);
  // Training mode: the training_mode attribute from opset 14; before opset 7 is_test = 0; in
  // between, the presence of the statistics outputs.
  bool training = false;
  if (ctx.opset() >= 14) {
    training = node.attr_int("training_mode", 0) != 0;
  } else if (ctx.opset() < 7) {
    training = node.attr_int("is_test", 0) == 0;
  } else {
    for (size_t i = 1; i < 5; ++i) training = training || ctx.wants_output(i);
  }
  if (ctx.opset() < 14 && (ctx.wants_output(3) || ctx.wants_output(4)))
    return ctx.unsupported("BatchNormalization saved_mean / saved_var outputs before opset 14");
  int64_t N = x.rank() >= 1 ? x.dims()[0] : 1;
  int64_t C = x.rank() >= 2 ? x.dims()[1] : 1;
  int64_t sp = norm::spatial_size(x);
  // Per-channel parameters, or (spatial = 0 before opset 9) one per element of a sample.
  int64_t per = C;
  if (ctx.opset() < 9 && node.attr_int("spatial", 1) == 0) per = C * sp;
  std::vector<double> scale = norm::to_doubles(ctx.input(1)), bias = norm::to_doubles(ctx.input(2));
  std::vector<double> mean = norm::to_doubles(ctx.input(3)), var = norm::to_doubles(ctx.input(4));
  auto sz = static_cast<size_t>(per);
  if (scale.size() != sz || bias.size() != sz || mean.size() != sz || var.size() != sz)
    return ctx.error("BatchNormalization scale, B, mean and var must have " + std::to_string(per) + " elements");
  std::vector<double> xv = norm::to_doubles(x);
  std::vector<double> yv(xv.size());
  int64_t inner = per == C ? sp : 1;  // elements sharing one parameter, per sample
  int64_t groups = per;               // parameter count
  std::vector<double> bmean(sz), bvar(sz);
  if (training) {
    if (per != C) return ctx.unsupported("BatchNormalization training with spatial = 0");
    for (int64_t c = 0; c < C; ++c) {
      double s = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < sp; ++i) s += xv[static_cast<size_t>((n * C + c) * sp + i)];
      double cnt = static_cast<double>(N * sp);
      double m = cnt > 0 ? s / cnt : 0;
      double q = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < sp; ++i) {
          double d = xv[static_cast<size_t>((n * C + c) * sp + i)] - m;
          q += d * d;
        }
      bmean[static_cast<size_t>(c)] = m;
      bvar[static_cast<size_t>(c)] = cnt > 0 ? q / cnt : 0;
    }
  }
  const std::vector<double>& um = training ? bmean : mean;
  const std::vector<double>& uv = training ? bvar : var;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < groups; ++gi) {
      auto g = static_cast<size_t>(gi);
      double a = scale[g] / std::sqrt(uv[g] + eps);
      for (int64_t i = 0; i < inner; ++i) {
        auto at = static_cast<size_t>((n * groups + gi) * inner + i);
        yv[at] = (xv[at] - um[g]) * a + bias[g];
      }
    }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), yv));
  if (training) {
    std::vector<double> rm(sz), rv(sz);
    for (size_t c = 0; c < sz; ++c) {
      rm[c] = mean[c] * momentum + bmean[c] * (1 - momentum);
      rv[c] = var[c] * momentum + bvar[c] * (1 - momentum);
    }
    if (ctx.wants_output(1)) ctx.set_output(1, norm::from_doubles(ctx.input(3).dtype(), ctx.input(3).dims(), rm));
    if (ctx.wants_output(2)) ctx.set_output(2, norm::from_doubles(ctx.input(4).dtype(), ctx.input(4).dims(), rv));
  } else if (ctx.wants_output(1) || ctx.wants_output(2)) {
    return ctx.error("BatchNormalization outputs running_mean/running_var need training_mode = 1");
  }
  return Status::ok();
}

// ---- shape inference
Status infer_batch_normalization(InferContext& ctx) {
  propagate_same(ctx);
  // Running / saved statistics have the shape of the mean input ([C]).
  for (size_t i = 1; i < ctx.num_outputs(); ++i)
    if (ctx.has_output(i)) propagate_same(ctx, i, 3);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(BatchNormalization, "", "BatchNormalization", (std::vector<int>{1, 6, 7, 9, 14, 15}),
                     eval_batch_normalization);
ONNXTRIM_REGISTER_INFER(BatchNormalization, "", "BatchNormalization", infer_batch_normalization);
ONNXTRIM_REGISTER_TYPES(BatchNormalization, "", "BatchNormalization", "T T1 T1 T2 T2",
                        {{"T", kFloatTypes}, {"T1", kFloatTypes}, {"T2", kFloatTypes}});

}  // namespace onnxtrim::ops
