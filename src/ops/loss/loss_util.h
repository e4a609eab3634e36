// Shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the weighted negative
// log-likelihood of log-probabilities [N, C, d1...] at integer targets [N, d1...], with
// ignore_index and the none/sum/mean reductions (mean divides by the sum of applied weights).
#pragma once

#include <optional>
#include <string>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::loss {

// logp: float-like tensor [N, C, d...] (read as double); returns the loss tensor in out_type.
Status nll(const KernelContext& ctx, const Tensor& logp, const Tensor& target, const Tensor* weight, DataType out_type,
           Tensor* out);
// Output shape rule: [] for sum/mean, [N, d1...] (the target's) for none.
Status infer_loss(InferContext& ctx);

}  // namespace onnxtrim::ops::loss
