// DeformConv: 2-D convolution whose sampling positions are shifted by learned offsets (bilinear
// interpolation, zero outside the image) and optionally scaled by a mask.
#include <cmath>

#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
template <typename T>
T bilinear(const T* img, int64_t H, int64_t W, T h, T w) {
  if (h <= T(-1) || h >= T(H) || w <= T(-1) || w >= T(W)) return T(0);
  auto h0 = static_cast<int64_t>(std::floor(h)), w0 = static_cast<int64_t>(std::floor(w));
  T lh = h - T(h0), lw = w - T(w0);
  auto at = [&](int64_t y, int64_t x) { return y >= 0 && y < H && x >= 0 && x < W ? img[y * W + x] : T(0); };
  return (T(1) - lh) * (T(1) - lw) * at(h0, w0) + (T(1) - lh) * lw * at(h0, w0 + 1) +
         lh * (T(1) - lw) * at(h0 + 1, w0) + lh * lw * at(h0 + 1, w0 + 1);
}

template <typename T>
Tensor deform_typed(const Tensor& x, const Tensor& w, const Tensor& off, const Tensor* b, const Tensor* mask,
                    const nn::Geometry& g, int64_t group, int64_t og) {
  int64_t N = x.dims()[0], C = x.dims()[1], M = w.dims()[0];
  int64_t H = g.in[0], W = g.in[1], kh = g.kernel[0], kw = g.kernel[1], oh = g.out[0], ow = g.out[1];
  int64_t K = kh * kw, out_size = oh * ow, Cg = C / group, Mg = M / group, Cog = C / og;
  Tensor y(dtype_of<T>(), {N, M, oh, ow});
  if (y.numel() == 0) return y;
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  const T* po = off.data<T>();
  const T* pm = mask ? mask->data<T>() : nullptr;
  T* py = y.mutable_data<T>();
  std::vector<T> col(static_cast<size_t>(C * K * out_size));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      int64_t grp = c / Cog;
      const T* img = px + (n * C + c) * H * W;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          int64_t k = i * kw + j;
          const T* offh = po + ((n * og + grp) * 2 * K + 2 * k) * out_size;
          const T* offw = offh + out_size;
          const T* mk = pm ? pm + ((n * og + grp) * K + k) * out_size : nullptr;
          T* row = col.data() + (c * K + k) * out_size;
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
              int64_t o = oy * ow + ox;
              T hh = T(oy * g.strides[0] - g.pads[0] + i * g.dilations[0]) + offh[o];
              T ww = T(ox * g.strides[1] - g.pads[1] + j * g.dilations[1]) + offw[o];
              T v = bilinear(img, H, W, hh, ww);
              row[o] = mk ? v * mk[o] : v;
            }
        }
    }
    for (int64_t gi = 0; gi < group; ++gi)
      nn::gemm(false, false, Mg, out_size, Cg * K, T(1), pw + gi * Mg * Cg * K, Cg * K,
               col.data() + gi * Cg * K * out_size, out_size, T(0), py + (n * M + gi * Mg) * out_size, out_size);
  }
  if (b) nn::add_channel_bias(py, b->data<T>(), N, M, out_size);
  return y;
}

Status eval_deform_conv(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.error("DeformConv needs inputs X, W and offset");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor& off = ctx.input(2);
  const Tensor* b = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const Tensor* mask = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  if (x.rank() != 4) return ctx.unsupported("DeformConv is implemented for 2-D images only");
  if (w.rank() != 4 || off.rank() != 4) return ctx.error("DeformConv W and offset must be 4-D");
  DataType dt = x.dtype();
  if (w.dtype() != dt || off.dtype() != dt || (b && b->dtype() != dt) || (mask && mask->dtype() != dt))
    return ctx.error("DeformConv inputs have different element types");
  int64_t group = ctx.node().attr_int("group", 1), og = ctx.node().attr_int("offset_group", 1);
  int64_t N = x.dims()[0], C = x.dims()[1], M = w.dims()[0];
  if (group <= 0 || C % group != 0 || M % group != 0 || w.dims()[1] != C / group)
    return ctx.error("DeformConv channel counts do not match group");
  if (og <= 0 || C % og != 0) return ctx.error("DeformConv offset_group must divide the channel count");
  nn::Geometry g;
  OT_RETURN_IF_ERROR(nn::conv_geometry(ctx, x, w, "W", &g));
  int64_t K = g.kernel[0] * g.kernel[1];
  if (off.dims() != Dims{N, og * 2 * K, g.out[0], g.out[1]}) return ctx.error("DeformConv offset has the wrong shape");
  if (mask && mask->dims() != Dims{N, og * K, g.out[0], g.out[1]})
    return ctx.error("DeformConv mask has the wrong shape");
  if (b && (b->rank() != 1 || b->dims()[0] != M)) return ctx.error("DeformConv bias must be 1-D of size M");
  Tensor y;
  auto typed = [&](auto tag, const std::vector<const Tensor*>& in) {
    return deform_typed<typename decltype(tag)::type>(*in[0], *in[1], *in[2], in[3], in[4], g, group, og);
  };
  if (!nn::run_float_kernel(dt, {&x, &w, &off, b, mask}, typed, &y))
    return ctx.error("DeformConv does not support element type " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_deform_conv(InferContext& ctx) { return nn::infer_conv_by_weight(ctx, 1, ctx.input(0).elem); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(DeformConv, "", "DeformConv", (std::vector<int>{19, 22}), eval_deform_conv);
ONNXTRIM_REGISTER_INFER(DeformConv, "", "DeformConv", infer_deform_conv);
ONNXTRIM_REGISTER_TYPES(DeformConv, "", "DeformConv", "T T T T T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
