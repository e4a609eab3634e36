// DFT (17, 20): discrete Fourier transform along one signal axis of input [..., 1 | 2] (real or
// complex in the last dim). The axis is an attribute (default 1) in 17 and an optional input
// (default -2) from 20; dft_length zero-pads or truncates. onesided forward returns bins
// 0..n/2 of a real signal; onesided inverse (IRFFT) rebuilds the full spectrum from them by
// conjugate symmetry and returns a real signal of dft_length (default 2 (bins - 1)). The
// inverse divides by n.
#include "ops/signal/signal_util.h"

namespace onnxtrim::ops {
namespace {

struct DftPlan {
  int64_t axis = 0;
  int64_t len = 0;   // DFT length
  int64_t bins = 0;  // output length along the axis
  bool inverse = false, onesided = false, complex_in = false, real_out = false;
};

Status plan_dft(KernelContext& ctx, DftPlan* p) {
  const Tensor& x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 2 || (x.dims().back() != 1 && x.dims().back() != 2))
    return ctx.error("DFT input's last dim must be 1 (real) or 2 (complex)");
  int64_t axis = ctx.opset() >= 20 ? -2 : ctx.node().attr_int("axis", 1);
  if (ctx.opset() >= 20 && ctx.has_input(2)) axis = to_int64_vector(ctx.input(2))[0];
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) return ctx.error("DFT axis is out of range");
  p->axis = axis;
  p->inverse = ctx.node().attr_int("inverse", 0) != 0;
  p->onesided = ctx.node().attr_int("onesided", 0) != 0;
  p->complex_in = x.dims().back() == 2;
  int64_t n = x.dims()[static_cast<size_t>(axis)];
  bool irfft = p->onesided && p->inverse;
  if (irfft && !p->complex_in) return ctx.error("DFT with onesided and inverse takes complex input");
  if (p->onesided && !p->inverse && p->complex_in) return ctx.error("DFT with onesided takes real input");
  p->len = irfft ? 2 * (n - 1) : n;
  if (ctx.has_input(1) && ctx.input(1).numel() == 1) p->len = to_int64_vector(ctx.input(1))[0];
  if (p->len < 1) return ctx.error("DFT length must be >= 1");
  p->real_out = irfft;
  p->bins = p->onesided && !p->inverse ? p->len / 2 + 1 : p->len;
  return Status::ok();
}

// ---- evaluate
Status eval_dft(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("DFT needs an input");
  const Tensor& x = ctx.input(0);
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("DFT takes float types");
  DftPlan p;
  OT_RETURN_IF_ERROR(plan_dft(ctx, &p));
  Dims out_dims = x.dims();
  out_dims[static_cast<size_t>(p.axis)] = p.bins;
  out_dims.back() = p.real_out ? 1 : 2;
  Tensor y(x.dtype(), out_dims);
  int64_t n = x.dims()[static_cast<size_t>(p.axis)];
  int64_t outer = numel_of(Dims(x.dims().begin(), x.dims().begin() + p.axis));
  int64_t inner = numel_of(Dims(x.dims().begin() + p.axis + 1, x.dims().end() - 1));
  int64_t c = x.dims().back();
  std::vector<std::complex<double>> seq;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      seq.assign(static_cast<size_t>(p.real_out ? p.len : std::min(n, p.len)), 0);
      int64_t take = std::min(n, p.len);
      for (int64_t k = 0; k < take; ++k) {
        int64_t base = ((o * n + k) * inner + in) * c;
        seq[static_cast<size_t>(k)] = {element_as_double(x, base), c == 2 ? element_as_double(x, base + 1) : 0.0};
      }
      if (p.real_out) {
        // The missing half of a one-sided spectrum: X[len - k] = conj(X[k]).
        for (int64_t k = take; k < p.len; ++k) {
          int64_t mirror = p.len - k;
          seq[static_cast<size_t>(k)] = mirror < take ? std::conj(seq[static_cast<size_t>(mirror)]) : 0;
        }
      }
      auto out = signal::dft(seq, p.len, p.bins, p.inverse);
      for (int64_t k = 0; k < p.bins; ++k) {
        int64_t base = ((o * p.bins + k) * inner + in) * (p.real_out ? 1 : 2);
        store_double(y, base, out[static_cast<size_t>(k)].real());
        if (!p.real_out) store_double(y, base + 1, out[static_cast<size_t>(k)].imag());
      }
    }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_dft(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape || x.shape->size() < 2) return Status::ok();
  int64_t r = x.rank();
  int64_t axis = ctx.opset() >= 20 ? -2 : ctx.node().attr_int("axis", 1);
  if (ctx.opset() >= 20 && ctx.has_input(2)) {
    auto a = ctx.input_ints(2);
    if (!a || a->size() != 1) {
      SymShape s(x.shape->size());
      for (auto& d : s) d = ctx.fresh();
      ctx.output(0).shape = s;
      return Status::ok();
    }
    axis = (*a)[0];
  }
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) return ctx.error("DFT axis is out of range");
  bool inverse = ctx.node().attr_int("inverse", 0) != 0, onesided = ctx.node().attr_int("onesided", 0) != 0;
  SymShape s = *x.shape;
  Expr n = s[static_cast<size_t>(axis)];
  Expr len = onesided && inverse ? (n - dim(1)) * dim(2) : n;
  if (ctx.has_input(1)) {
    auto l = ctx.input_ints(1);
    len = l && l->size() == 1 ? dim((*l)[0]) : ctx.fresh();
  }
  s[static_cast<size_t>(axis)] = onesided && !inverse ? Expr::floordiv(len, dim(2)) + dim(1) : len;
  s.back() = dim(onesided && inverse ? 1 : 2);
  ctx.output(0).shape = s;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(DFT, "", "DFT", (std::vector<int>{17, 20}), eval_dft);
ONNXTRIM_REGISTER_INFER(DFT, "", "DFT", infer_dft);
ONNXTRIM_REGISTER_TYPES(DFT, "", "DFT", "T1 T2 axis",
                        {{"T1", kFloatTypes},
                         {"T2", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})},
                         {"axis", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
