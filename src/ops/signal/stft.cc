// STFT (17): short-time Fourier transform of signal [B, L, 1 | 2]. Frames of frame_length
// (default: the window's length) start every frame_step samples; frames = (L - frame_length) /
// frame_step + 1. Each frame is multiplied by the window (when given) and transformed; output
// [B, frames, bins, 2] with bins = frame_length / 2 + 1 when onesided (default 1, real signals
// only), else frame_length.
#include "ops/signal/signal_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_stft(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("STFT needs signal and frame_step");
  const Tensor& x = ctx.input(0);
  if (x.rank() != 3 || (x.dims()[2] != 1 && x.dims()[2] != 2))
    return ctx.error("STFT signal must be [batch, length, 1 | 2]");
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("STFT takes float types");
  int64_t step = to_int64_vector(ctx.input(1))[0];
  const Tensor* window = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  int64_t flen = window ? window->numel() : 0;
  if (ctx.has_input(3)) flen = to_int64_vector(ctx.input(3))[0];
  if (flen <= 0 || step <= 0) return ctx.error("STFT needs a positive frame_length (or window) and frame_step");
  if (window && window->numel() != flen) return ctx.error("STFT window length must equal frame_length");
  bool onesided = ctx.node().attr_int("onesided", 1) != 0;
  bool complex_in = x.dims()[2] == 2;
  if (onesided && complex_in) return ctx.error("STFT onesided takes a real signal");
  int64_t B = x.dims()[0], L = x.dims()[1], C = x.dims()[2];
  if (L < flen) return ctx.error("STFT signal is shorter than a frame");
  int64_t frames = (L - flen) / step + 1;
  int64_t bins = onesided ? flen / 2 + 1 : flen;
  Tensor y(x.dtype(), {B, frames, bins, 2});
  std::vector<std::complex<double>> seq(static_cast<size_t>(flen));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t k = 0; k < flen; ++k) {
        int64_t base = (b * L + f * step + k) * C;
        double w = window ? element_as_double(*window, k) : 1.0;
        seq[static_cast<size_t>(k)] = {w * element_as_double(x, base),
                                       complex_in ? w * element_as_double(x, base + 1) : 0.0};
      }
      auto out = signal::dft(seq, flen, bins, false);
      for (int64_t k = 0; k < bins; ++k) {
        store_double(y, ((b * frames + f) * bins + k) * 2, out[static_cast<size_t>(k)].real());
        store_double(y, ((b * frames + f) * bins + k) * 2 + 1, out[static_cast<size_t>(k)].imag());
      }
    }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_stft(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape || x.shape->size() != 3) return Status::ok();
  auto step = ctx.input_ints(1);
  std::optional<Expr> flen;
  if (ctx.has_input(3)) {
    if (auto f = ctx.input_ints(3); f && f->size() == 1) flen = dim((*f)[0]);
  } else if (ctx.has_input(2) && ctx.input(2).shape && ctx.input(2).shape->size() == 1) {
    flen = (*ctx.input(2).shape)[0];
  }
  bool onesided = ctx.node().attr_int("onesided", 1) != 0;
  Expr frames = flen && step && step->size() == 1 && (*step)[0] > 0
                    ? Expr::floordiv((*x.shape)[1] - *flen, dim((*step)[0])) + dim(1)
                    : ctx.fresh();
  Expr bins = flen ? (onesided ? Expr::floordiv(*flen, dim(2)) + dim(1) : *flen) : ctx.fresh();
  ctx.output(0).shape = SymShape{(*x.shape)[0], frames, bins, dim(2)};
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(STFT, "", "STFT", (std::vector<int>{17}), eval_stft);
ONNXTRIM_REGISTER_INFER(STFT, "", "STFT", infer_stft);
ONNXTRIM_REGISTER_TYPES(STFT, "", "STFT", "T1 T2 T1 T2",
                        {{"T1", kFloatTypes}, {"T2", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
