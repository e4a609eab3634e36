// MaxPool: windowed maximum, optional Indices output (flat, row- or column-major spatial).
#include <cstdlib>
#include <limits>

#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_max_pool(KernelContext& ctx) {
  nn::Geometry g;
  Dims out_dims;
  OT_RETURN_IF_ERROR(nn::pool_geometry(ctx, 10, &g, &out_dims));
  const Tensor& x = ctx.input(0);
  const ir::Node& node = ctx.node();
  int64_t storage_order = node.attr_int("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) return ctx.error("MaxPool storage_order must be 0 or 1");
  int64_t N = x.dims()[0], C = x.dims()[1];
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out);
  bool want_idx = ctx.wants_output(1);
  Tensor idx(DataType::kInt64, out_dims);
  int64_t* pi = want_idx && idx.numel() ? idx.mutable_data<int64_t>() : nullptr;
  // Column-major strides for storage_order 1.
  Dims col_strides(g.in.size(), 1);
  for (size_t d = 1; d < g.in.size(); ++d) col_strides[d] = col_strides[d - 1] * g.in[d - 1];
  // Fast path: float 2-D pooling without dilation or indices (the common CNN case).
  if (x.dtype() == DataType::kFloat && g.in.size() == 2 && !want_idx && g.dilations[0] == 1 && g.dilations[1] == 1) {
    Tensor y(x.dtype(), out_dims);
    const float* px = x.data<float>();
    float* py = y.numel() ? y.mutable_data<float>() : nullptr;
    int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
    for (int64_t plane = 0; plane < N * C; ++plane) {
      const float* xp = px + plane * H * W;
      float* yp = py + plane * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        int64_t h0 = oh * g.strides[0] - g.pads[0];
        int64_t hs = std::max<int64_t>(h0, 0), he = std::min<int64_t>(h0 + g.kernel[0], H);
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t w0 = ow * g.strides[1] - g.pads[1];
          int64_t ws = std::max<int64_t>(w0, 0), we = std::min<int64_t>(w0 + g.kernel[1], W);
          float best = 0;
          bool any = false;
          for (int64_t h = hs; h < he; ++h)
            for (int64_t w = ws; w < we; ++w) {
              float v = xp[h * W + w];
              if (std::isnan(v)) continue;  // NaN never wins, as in the general path
              if (!any || v > best) {
                best = v;
                any = true;
              }
            }
          yp[oh * OW + ow] = any ? best : std::nanf("");  // as the general path: no candidate is NaN
        }
      }
    }
    ctx.set_output(0, std::move(y));
    return Status::ok();
  }
  Tensor y;
  bool ok = dispatch(x.dtype(), kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT = compute_t<T>;
    y = Tensor(x.dtype(), out_dims);
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    CT best{};
    int64_t best_off = -1;
    const T* plane_ptr = px;
    int64_t cur_plane = 0;
    std::vector<int64_t> best_pos;
    nn::for_each_window(
        N * C, g, [&] { best_off = -1; },
        [&](int64_t off, const std::vector<int64_t>& pos) {
          CT v = static_cast<CT>(plane_ptr[off]);
          if constexpr (std::is_floating_point_v<CT>) {
            if (std::isnan(v)) return;
          }
          if (best_off < 0 || v > best) {
            best = v;
            best_off = off;
            if (storage_order == 1) best_pos = pos;
          }
        },
        [&](int64_t plane, int64_t o, int64_t) {
          int64_t at = plane * out_size + o;
          if (best_off < 0) {
            if constexpr (std::is_floating_point_v<CT>) py[at] = T(std::numeric_limits<float>::quiet_NaN());
            else py[at] = T(0);
          } else {
            py[at] = T(best);
          }
          if (pi) {
            int64_t sp = best_off;
            if (storage_order == 1 && best_off >= 0) {
              sp = 0;
              for (size_t d = 0; d < best_pos.size(); ++d) sp += best_pos[d] * col_strides[d];
            }
            pi[at] = best_off < 0 ? -1 : plane * in_size + sp;
          }
          // advance the plane pointer when the next call moves to the next plane
          if (o == out_size - 1) {
            ++cur_plane;
            plane_ptr = px + cur_plane * in_size;
          }
        });
  });
  if (!ok) return ctx.error("MaxPool does not support element type " + std::string(ir::dtype_name(x.dtype())));
  if (y.dtype() == DataType::kUndefined) y = Tensor(x.dtype(), out_dims);
  ctx.set_output(0, std::move(y));
  if (want_idx) ctx.set_output(1, std::move(idx));
  return Status::ok();
}

// ---- shape inference
Status infer_max_pool(InferContext& ctx) {
  std::vector<int64_t> kernel = ctx.node().attr_ints("kernel_shape");
  OT_RETURN_IF_ERROR(nn::infer_conv_like(ctx, std::nullopt, kernel, ctx.node().attr_int("ceil_mode", 0) != 0));
  if (ctx.has_output(1)) {
    ctx.output(1) = ctx.output(0);
    ctx.output(1).elem = DataType::kInt64;
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(MaxPool, "", "MaxPool", (std::vector<int>{1, 8, 10, 11, 12, 22}), eval_max_pool);
ONNXTRIM_REGISTER_INFER(MaxPool, "", "MaxPool", infer_max_pool);
ONNXTRIM_REGISTER_TYPES(MaxPool, "", "MaxPool", "T", {{"T", kFloatTypes | nn::k8BitTypes}});

}  // namespace onnxtrim::ops
