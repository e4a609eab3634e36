// RoiAlign (10, 16, 22): for each RoI [x1, y1, x2, y2] (scaled by spatial_scale, shifted by
// -0.5 with half_pixel; opset 10 behaves as output_half_pixel, where RoI sides are at least 1),
// an output_height x output_width grid of bins, each sampled at sampling_ratio^2 points (or
// ceil(roi size / output size) per side when 0) by bilinear interpolation. avg mode averages
// the samples; max mode takes the largest of the weighted corner values over the samples.
// Samples beyond one pixel outside the map read 0; others clamp to the map.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_roi_align(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.error("RoiAlign needs X, rois and batch_indices");
  const Tensor& x = ctx.input(0);
  const Tensor& rois = ctx.input(1);
  std::vector<int64_t> bidx = to_int64_vector(ctx.input(2));
  if (x.rank() != 4 || rois.rank() != 2 || rois.dims()[1] != 4 || static_cast<int64_t>(bidx.size()) != rois.dims()[0])
    return ctx.error("RoiAlign needs X [N, C, H, W], rois [R, 4] and batch_indices [R]");
  const ir::Node& n = ctx.node();
  int64_t oh = n.attr_int("output_height", 1), ow = n.attr_int("output_width", 1), sr = n.attr_int("sampling_ratio", 0);
  double scale = n.attr_float("spatial_scale", 1.0f);
  std::string mode = n.attr_string("mode", "avg");
  bool half_pixel = ctx.opset() >= 16 && n.attr_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  if (mode != "avg" && mode != "max") return ctx.error("RoiAlign mode must be avg or max");
  int64_t N = x.dims()[0], C = x.dims()[1], H = x.dims()[2], W = x.dims()[3], R = rois.dims()[0];
  Tensor y(x.dtype(), {R, C, oh, ow});
  double off = half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < R; ++r) {
    int64_t b = bidx[static_cast<size_t>(r)];
    if (b < 0 || b >= N) return ctx.error("RoiAlign batch index out of range");
    double x1 = element_as_double(rois, r * 4) * scale - off, y1 = element_as_double(rois, r * 4 + 1) * scale - off;
    double x2 = element_as_double(rois, r * 4 + 2) * scale - off, y2 = element_as_double(rois, r * 4 + 3) * scale - off;
    double rw = x2 - x1, rh = y2 - y1;
    if (!half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
    int64_t gh = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rh / static_cast<double>(oh)));
    int64_t gw = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rw / static_cast<double>(ow)));
    double count = std::max<double>(static_cast<double>(gh * gw), 1.0);
    for (int64_t c = 0; c < C; ++c) {
      const int64_t plane = ((b * C) + c) * H * W;
      auto at = [&](int64_t yy, int64_t xx) { return element_as_double(x, plane + yy * W + xx); };
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = mode == "avg" ? 0.0 : -INFINITY;
          bool any = false;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double yy =
                  y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
              double xx =
                  x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
              if (yy < -1.0 || yy > static_cast<double>(H) || xx < -1.0 || xx > static_cast<double>(W)) {
                if (mode == "max") {
                  acc = std::max(acc, 0.0);
                  any = true;
                }
                continue;
              }
              yy = std::max(yy, 0.0);
              xx = std::max(xx, 0.0);
              auto yl = static_cast<int64_t>(yy), xl = static_cast<int64_t>(xx);
              int64_t yh, xh;
              if (yl >= H - 1) {
                yh = yl = H - 1;
                yy = static_cast<double>(yl);
              } else {
                yh = yl + 1;
              }
              if (xl >= W - 1) {
                xh = xl = W - 1;
                xx = static_cast<double>(xl);
              } else {
                xh = xl + 1;
              }
              double ly = yy - static_cast<double>(yl), lx = xx - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
              double w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
              if (mode == "avg") {
                acc += w1 * at(yl, xl) + w2 * at(yl, xh) + w3 * at(yh, xl) + w4 * at(yh, xh);
              } else {
                acc = std::max({acc, w1 * at(yl, xl), w2 * at(yl, xh), w3 * at(yh, xl), w4 * at(yh, xh)});
                any = true;
              }
            }
          double v = mode == "avg" ? acc / count : (any ? acc : 0.0);
          int64_t o = ((r * C + c) * oh + ph) * ow + pw;
          switch (y.dtype()) {
            case DataType::kFloat: y.mutable_data<float>()[o] = static_cast<float>(v); break;
            case DataType::kDouble: y.mutable_data<double>()[o] = v; break;
            case DataType::kFloat16: y.mutable_data<Half>()[o] = Half(static_cast<float>(v)); break;
            case DataType::kBFloat16: y.mutable_data<BFloat16>()[o] = BFloat16(static_cast<float>(v)); break;
            default: return ctx.error("RoiAlign takes float types");
          }
        }
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: [R, C, output_height, output_width]
Status infer_roi_align(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  const TypeInfo& rois = ctx.input(1);
  ctx.output(0) = TypeInfo::tensor(
      x.elem, SymShape{rois.shape && rois.shape->size() == 2 ? (*rois.shape)[0] : ctx.fresh(),
                       x.shape && x.shape->size() == 4 ? (*x.shape)[1] : ctx.fresh(),
                       dim(ctx.node().attr_int("output_height", 1)), dim(ctx.node().attr_int("output_width", 1))});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(RoiAlign, "", "RoiAlign", (std::vector<int>{10, 16, 22}), eval_roi_align);
ONNXTRIM_REGISTER_INFER(RoiAlign, "", "RoiAlign", infer_roi_align);
ONNXTRIM_REGISTER_TYPES(RoiAlign, "", "RoiAlign", "T1 T1 T2",
                        {{"T1", kFloatTypes}, {"T2", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
