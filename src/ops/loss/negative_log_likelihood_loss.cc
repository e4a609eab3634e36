// NegativeLogLikelihoodLoss: -input[n, target[n, d...], d...] * weight[target], reduced
// (none/sum/mean over the applied weights), skipping ignore_index.
#include "ops/loss/loss_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_negative_log_likelihood_loss(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("NegativeLogLikelihoodLoss needs input and target");
  const Tensor& x = ctx.input(0);
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("NegativeLogLikelihoodLoss takes float inputs");
  Tensor out;
  OT_RETURN_IF_ERROR(loss::nll(ctx, x, ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr, x.dtype(), &out));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_negative_log_likelihood_loss(InferContext& ctx) { return loss::infer_loss(ctx); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(NegativeLogLikelihoodLoss, "", "NegativeLogLikelihoodLoss", (std::vector<int>{12, 13, 22}),
                     eval_negative_log_likelihood_loss);
ONNXTRIM_REGISTER_INFER(NegativeLogLikelihoodLoss, "", "NegativeLogLikelihoodLoss", infer_negative_log_likelihood_loss);
ONNXTRIM_REGISTER_TYPES(NegativeLogLikelihoodLoss, "", "NegativeLogLikelihoodLoss", "T Tind T",
                        {{"T", kFloatTypes}, {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
