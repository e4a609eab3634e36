// GridSample (16, 20, 22): samples X [N, C, D1..Dr] at the normalised positions of grid
// [N, O1..Or, r] (innermost spatial axis first in the last grid dim), giving [N, C, O1..Or].
// A grid value g in [-1, 1] maps to the pixel coordinate ((g + 1) size - 1) / 2, or
// (g + 1) (size - 1) / 2 with align_corners. Modes: nearest (halfway rounds to even), linear
// (2^r taps), cubic (4^r taps, a = -0.75). padding_mode: zeros (taps outside read 0), border
// (the coordinate and taps are clamped), reflection (reflected about the border: the corner
// pixels' centres with align_corners, else their outer edges). Opset 16 is 2-D only and spells
// the modes bilinear / bicubic.
#include <cmath>

#include "ops/infer.h"
#include "ops/image/resize_util.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

double reflect(double x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    double dx = lo - x;
    auto n = static_cast<int64_t>(dx / range);
    double r = dx - static_cast<double>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double dx = x - hi;
    auto n = static_cast<int64_t>(dx / range);
    double r = dx - static_cast<double>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubic_coeffs(double t, double* w) {
  const double a = -0.75;
  auto k = [&](double x) {
    x = std::fabs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  w[0] = k(t + 1);
  w[1] = k(t);
  w[2] = k(1 - t);
  w[3] = k(2 - t);
}

// ---- evaluate
Status eval_grid_sample(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("GridSample needs X and grid");
  const Tensor& x = ctx.input(0);
  const Tensor& grid = ctx.input(1);
  int64_t r = x.rank() - 2;
  if (r < 1 || grid.rank() != r + 2 || grid.dims()[0] != x.dims()[0] || grid.dims().back() != r)
    return ctx.error("GridSample needs X [N, C, D1..Dr] and grid [N, O1..Or, r]");
  if (ctx.opset() < 20 && r != 2) return ctx.error("GridSample before opset 20 takes 4-D input only");
  std::string mode = ctx.node().attr_string("mode", ctx.opset() < 20 ? "bilinear" : "linear");
  if (mode == "bilinear") mode = "linear";
  if (mode == "bicubic") mode = "cubic";
  if (mode != "linear" && mode != "nearest" && mode != "cubic")
    return ctx.error("GridSample mode '" + mode + "' is unknown");
  std::string pad = ctx.node().attr_string("padding_mode", "zeros");
  if (pad != "zeros" && pad != "border" && pad != "reflection")
    return ctx.error("GridSample padding_mode '" + pad + "' is unknown");
  bool align = ctx.node().attr_int("align_corners", 0) != 0;
  int64_t N = x.dims()[0], C = x.dims()[1];
  Dims in_sp(x.dims().begin() + 2, x.dims().end());
  Dims out_sp(grid.dims().begin() + 1, grid.dims().end() - 1);
  Dims out_dims{N, C};
  out_dims.insert(out_dims.end(), out_sp.begin(), out_sp.end());
  Tensor y(x.dtype(), out_dims);
  int64_t in_plane = numel_of(in_sp), out_plane = numel_of(out_sp);
  Dims in_strides = strides_of(in_sp);
  std::vector<double> xd = image::elements_as_doubles(x);
  std::vector<double> yd(static_cast<size_t>(y.numel()), 0.0);
  // Per axis: tap indices and weights; the product over axes gives the N-D taps.
  std::vector<std::vector<int64_t>> idx(static_cast<size_t>(r));
  std::vector<std::vector<double>> wts(static_cast<size_t>(r));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < out_plane; ++o) {
      for (int64_t a = 0; a < r; ++a) {
        // grid's last dim lists the innermost axis first.
        double g = element_as_double(grid, (n * out_plane + o) * r + (r - 1 - a));
        double size = static_cast<double>(in_sp[static_cast<size_t>(a)]);
        double c = align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
        double lo = align ? 0 : -0.5, hi = align ? size - 1 : size - 0.5;
        if (pad == "border") c = std::clamp(c, 0.0, size - 1);
        else if (pad == "reflection" && (c < lo || c > hi)) c = reflect(c, lo, hi);
        auto& I = idx[static_cast<size_t>(a)];
        auto& W = wts[static_cast<size_t>(a)];
        I.clear();
        W.clear();
        if (mode == "nearest") {
          I.push_back(static_cast<int64_t>(std::nearbyint(c)));
          W.push_back(1);
        } else if (mode == "linear") {
          double f = std::floor(c);
          I = {static_cast<int64_t>(f), static_cast<int64_t>(f) + 1};
          W = {1 - (c - f), c - f};
        } else {
          double f = std::floor(c);
          double w[4];
          cubic_coeffs(c - f, w);
          for (int k = 0; k < 4; ++k) {
            I.push_back(static_cast<int64_t>(f) - 1 + k);
            W.push_back(w[k]);
          }
        }
      }
      // Walk the cartesian product of the taps.
      std::vector<size_t> pos(static_cast<size_t>(r), 0);
      std::vector<double> acc(static_cast<size_t>(C), 0.0);
      while (true) {
        double w = 1;
        int64_t off = 0;
        bool zero = false;
        for (int64_t a = 0; a < r; ++a) {
          int64_t i = idx[static_cast<size_t>(a)][pos[static_cast<size_t>(a)]];
          int64_t size = in_sp[static_cast<size_t>(a)];
          w *= wts[static_cast<size_t>(a)][pos[static_cast<size_t>(a)]];
          if (i < 0 || i >= size) {
            if (pad == "zeros") zero = true;
            else if (pad == "border") i = std::clamp<int64_t>(i, 0, size - 1);
            else
              i = std::clamp<int64_t>(static_cast<int64_t>(reflect(
                                          static_cast<double>(i), align ? 0 : -0.5,
                                          align ? static_cast<double>(size - 1) : static_cast<double>(size) - 0.5)),
                                      0, size - 1);
          }
          off += i * in_strides[static_cast<size_t>(a)];
        }
        if (!zero && w != 0)
          for (int64_t ch = 0; ch < C; ++ch)
            acc[static_cast<size_t>(ch)] += w * xd[static_cast<size_t>((n * C + ch) * in_plane + off)];
        int64_t a = r - 1;
        for (; a >= 0; --a) {
          if (++pos[static_cast<size_t>(a)] < idx[static_cast<size_t>(a)].size()) break;
          pos[static_cast<size_t>(a)] = 0;
        }
        if (a < 0) break;
      }
      for (int64_t ch = 0; ch < C; ++ch)
        yd[static_cast<size_t>((n * C + ch) * out_plane + o)] = acc[static_cast<size_t>(ch)];
    }
  }
  if (!image::store_doubles(y, yd))
    return ctx.unsupported("GridSample does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: [N, C] of X, then the grid's spatial dims
Status infer_grid_sample(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  const TypeInfo& g = ctx.input(1);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!g.shape || g.shape->size() < 3) return Status::ok();
  SymShape out{x.shape && x.shape->size() >= 2 ? (*x.shape)[0] : (*g.shape)[0],
               x.shape && x.shape->size() >= 2 ? (*x.shape)[1] : ctx.fresh()};
  out.insert(out.end(), g.shape->begin() + 1, g.shape->end() - 1);
  ctx.output(0).shape = out;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(GridSample, "", "GridSample", (std::vector<int>{16, 20, 22}), eval_grid_sample);
ONNXTRIM_REGISTER_INFER(GridSample, "", "GridSample", infer_grid_sample);
ONNXTRIM_REGISTER_TYPES(GridSample, "", "GridSample", "T1 T2", {{"T1", kAllTensorTypes}, {"T2", kFloatTypes}});

}  // namespace onnxtrim::ops
