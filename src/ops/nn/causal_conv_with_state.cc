// CausalConvWithState (27): depthwise causal 1-D convolution with a carried state.
//   input [B, C, L], weight [C, 1, k], bias [C], past_state [B, C, k-1] (zeros when absent).
//   With s = concat(past_state, input) along the length (length k - 1 + L):
//   output[b, c, t] = act(bias[c] + sum_j weight[c, 0, j] s[b, c, t + j]),
//   present_state = the last k - 1 positions of s; act is none or silu/swish (x sigmoid(x)).
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_causal_conv_with_state(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("CausalConvWithState needs input and weight");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("CausalConvWithState takes float types");
  if (x.rank() != 3 || w.rank() != 3 || w.dims()[0] != x.dims()[1] || w.dims()[1] != 1)
    return ctx.error("CausalConvWithState needs input [B, C, L] and weight [C, 1, k]");
  int64_t B = x.dims()[0], C = x.dims()[1], L = x.dims()[2], k = w.dims()[2];
  if (k < 1) return ctx.error("CausalConvWithState kernel size must be >= 1");
  std::string act = ctx.node().attr_string("activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    return ctx.error("CausalConvWithState activation must be none, silu or swish");
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* past = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (bias && bias->numel() != C) return ctx.error("CausalConvWithState bias must have one value per channel");
  if (past && (past->rank() != 3 || past->dims()[0] != B || past->dims()[1] != C || past->dims()[2] != k - 1))
    return ctx.error("CausalConvWithState past_state must be [B, C, k - 1]");
  int64_t total = k - 1 + L;
  Tensor y(x.dtype(), x.dims());
  Tensor state(x.dtype(), {B, C, k - 1});
  std::vector<double> s(static_cast<size_t>(total));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t t = 0; t < k - 1; ++t)
        s[static_cast<size_t>(t)] = past ? element_as_double(*past, (b * C + c) * (k - 1) + t) : 0.0;
      for (int64_t t = 0; t < L; ++t) s[static_cast<size_t>(k - 1 + t)] = element_as_double(x, (b * C + c) * L + t);
      for (int64_t t = 0; t < L; ++t) {
        double acc = bias ? element_as_double(*bias, c) : 0.0;
        for (int64_t j = 0; j < k; ++j) acc += element_as_double(w, c * k + j) * s[static_cast<size_t>(t + j)];
        if (act != "none") acc = acc / (1.0 + std::exp(-acc));
        store_double(y, (b * C + c) * L + t, acc);
      }
      for (int64_t t = 0; t < k - 1; ++t)
        store_double(state, (b * C + c) * (k - 1) + t, s[static_cast<size_t>(total - (k - 1) + t)]);
    }
  ctx.set_output(0, std::move(y));
  if (ctx.wants_output(1)) ctx.set_output(1, std::move(state));
  return Status::ok();
}

// ---- shape inference
Status infer_causal_conv_with_state(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).values.reset();
  if (ctx.has_output(1)) {
    const TypeInfo& x = ctx.input(0);
    const TypeInfo& w = ctx.input(1);
    ctx.output(1) = TypeInfo::tensor(x.elem, std::nullopt);
    if (x.shape && x.shape->size() == 3 && w.shape && w.shape->size() == 3)
      ctx.output(1).shape = SymShape{(*x.shape)[0], (*x.shape)[1], (*w.shape)[2] - dim(1)};
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(CausalConvWithState, "", "CausalConvWithState", (std::vector<int>{27}),
                     eval_causal_conv_with_state);
ONNXTRIM_REGISTER_INFER(CausalConvWithState, "", "CausalConvWithState", infer_causal_conv_with_state);
ONNXTRIM_REGISTER_TYPES(CausalConvWithState, "", "CausalConvWithState", "T T T T",
                        {{"T", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})}});

}  // namespace onnxtrim::ops
