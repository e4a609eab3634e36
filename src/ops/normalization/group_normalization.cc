// GroupNormalization: channels split into num_groups groups, each normalised over its channels
// and spatial positions. Scale and bias are per group at opset 18, per channel from opset 21.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_group_normalization(KernelContext& ctx) {
  OT_RETURN_IF_ERROR(norm::check_float_input(ctx, 3, "GroupNormalization needs inputs X, scale and bias", 2));
  const Tensor& x = ctx.input(0);
  const ir::Node& node = ctx.node();
  if (!node.has_attr("num_groups")) return ctx.error("GroupNormalization requires num_groups");
  int64_t G = node.attr_int("num_groups", 1);
  double eps = node.attr_float("epsilon", 1e-5f);
  int64_t N = x.dims()[0], C = x.dims()[1];
  if (G <= 0 || C % G != 0) return ctx.error("GroupNormalization num_groups must divide the channel count");
  int64_t sp = norm::spatial_size(x);
  bool per_channel = ctx.opset() >= 21;
  std::vector<double> scale = norm::to_doubles(ctx.input(1)), bias = norm::to_doubles(ctx.input(2));
  auto want = static_cast<size_t>(per_channel ? C : G);
  if (scale.size() != want || bias.size() != want)
    return ctx.error("GroupNormalization scale and bias must have " + std::to_string(want) + " elements");
  bool low = true;
  if (per_channel) {
    auto st = static_cast<DataType>(node.attr_int("stash_type", 1));
    if (!norm::is_float_type(st)) return ctx.error("GroupNormalization stash_type must be a float type");
    low = st != DataType::kDouble;
  }
  int64_t Cg = C / G, gsize = Cg * sp;
  std::vector<double> v = norm::to_doubles(x);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      double* p = v.data() + (n * C + g * Cg) * sp;
      double m, is;
      norm::mean_and_inv_std(p, gsize, eps, &m, &is);
      for (int64_t c = 0; c < Cg; ++c) {
        auto k = static_cast<size_t>(per_channel ? g * Cg + c : g);
        for (int64_t i = 0; i < sp; ++i) {
          double& e = p[c * sp + i];
          double nrm = (e - m) * is;
          if (low) nrm = static_cast<float>(nrm);
          e = nrm * scale[k] + bias[k];
        }
      }
    }
  ctx.set_output(0, norm::from_doubles(x.dtype(), x.dims(), v));
  return Status::ok();
}

}  // namespace

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(GroupNormalization, "", "GroupNormalization", (std::vector<int>{18, 21}),
                     eval_group_normalization);
ONNXTRIM_REGISTER_INFER(GroupNormalization, "", "GroupNormalization", infer_same);
ONNXTRIM_REGISTER_TYPES(GroupNormalization, "", "GroupNormalization", "T T T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
