// SoftmaxCrossEntropyLoss: log-softmax over the class axis (axis 1), then the negative
// log-likelihood at the targets (weights, ignore_index, reduction); the optional second output
// is the log-softmax itself.
#include <cmath>

#include "ops/loss/loss_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_softmax_cross_entropy_loss(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("SoftmaxCrossEntropyLoss needs scores and labels");
  const Tensor& x = ctx.input(0);
  if (!ir::dtype_is_float(x.dtype()) || x.rank() < 2)
    return ctx.error("SoftmaxCrossEntropyLoss takes float scores [N, C, ...]");
  int64_t n = x.dims()[0], c = x.dims()[1];
  int64_t inner = numel_of(Dims(x.dims().begin() + 2, x.dims().end()));
  // Log-softmax in double, over the class axis.
  Tensor logp(DataType::kDouble, x.dims());
  double* lp = logp.numel() ? logp.mutable_data<double>() : nullptr;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      double m = -INFINITY;
      for (int64_t k = 0; k < c; ++k) m = std::max(m, element_as_double(x, (b * c + k) * inner + i));
      double s = 0;
      for (int64_t k = 0; k < c; ++k) s += std::exp(element_as_double(x, (b * c + k) * inner + i) - m);
      double lse = m + std::log(s);
      for (int64_t k = 0; k < c; ++k) lp[(b * c + k) * inner + i] = element_as_double(x, (b * c + k) * inner + i) - lse;
    }
  Tensor out;
  OT_RETURN_IF_ERROR(loss::nll(ctx, logp, ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr, x.dtype(), &out));
  ctx.set_output(0, std::move(out));
  if (ctx.wants_output(1)) {
    Tensor lo(x.dtype(), x.dims());
    dispatch(x.dtype(), kFloats, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = lo.numel() ? lo.mutable_data<T>() : nullptr;
      for (int64_t i = 0; i < lo.numel(); ++i) p[i] = T(static_cast<compute_t<T>>(lp[i]));
    });
    ctx.set_output(1, std::move(lo));
  }
  return Status::ok();
}

// ---- shape inference
Status infer_softmax_cross_entropy_loss(InferContext& ctx) { return loss::infer_loss(ctx); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SoftmaxCrossEntropyLoss, "", "SoftmaxCrossEntropyLoss", (std::vector<int>{12, 13}),
                     eval_softmax_cross_entropy_loss);
ONNXTRIM_REGISTER_INFER(SoftmaxCrossEntropyLoss, "", "SoftmaxCrossEntropyLoss", infer_softmax_cross_entropy_loss);
ONNXTRIM_REGISTER_TYPES(SoftmaxCrossEntropyLoss, "", "SoftmaxCrossEntropyLoss", "T Tind T",
                        {{"T", kFloatTypes}, {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
