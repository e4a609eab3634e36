// Shared plumbing of the ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum): inputs
// are R (learning rate), T (update count), then `kinds` groups of n tensors each (the optimized
// tensors, their gradients, then one group per state); outputs are the new tensors followed by
// one group per new state. Each element is updated independently, in double.
#pragma once

#include <functional>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::training {

// step(R, T, in[kinds], out[kinds - 1]) computes one element.
using OptimizerStep = std::function<void(double, int64_t, const double*, double*)>;

Status run_optimizer(KernelContext& ctx, size_t kinds, const OptimizerStep& step);

// Output j of group g has the type of input 2 + g' * n + j, where g' is X (g = 0) or the state
// group the output updates.
Status infer_optimizer(InferContext& ctx, size_t kinds);

}  // namespace onnxtrim::ops::training
