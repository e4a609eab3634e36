#include "ops/image/resize_util.h"

#include <algorithm>
#include <cmath>

#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops::image {

namespace {

double cubic_kernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Input coordinate of output position x.
double original_coord(const ResizeParams& p, double x, int64_t in, int64_t out, double scale, double rs, double re) {
  const std::string& m = p.coord;
  if (m == "asymmetric") return x / scale;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;  // opset 11 only
  if (m == "align_corners") {
    // length_resized is the output's integer length, floor(in * scale) for a scale (the spec's
    // formula, and ONNX Runtime; the onnx reference implementation uses the unfloored product).
    return out <= 1 ? 0 : x * static_cast<double>(in - 1) / static_cast<double>(out - 1);
  }
  if (m == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0;
  if (m == "tf_crop_and_resize") {
    double span = static_cast<double>(in - 1);
    return out > 1 ? rs * span + x * (re - rs) * span / static_cast<double>(out - 1) : 0.5 * (rs + re) * span;
  }
  if (m == "half_pixel_symmetric") {
    double adjustment = static_cast<double>(out) / (scale * static_cast<double>(in));
    double center = static_cast<double>(in) / 2;
    double offset = center * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

int64_t nearest_index(const std::string& mode, double x) {
  double f = std::floor(x);
  double frac = x - f;
  if (mode == "floor") return static_cast<int64_t>(f);
  if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
  if (mode == "round_prefer_ceil") return static_cast<int64_t>(frac >= 0.5 ? f + 1 : f);
  return static_cast<int64_t>(frac > 0.5 ? f + 1 : f);  // round_prefer_floor
}

}  // namespace

std::vector<Taps> plan_axis(const ResizeParams& p, int64_t in, int64_t out, double scale, double rs, double re) {
  std::vector<Taps> plan(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    Taps& t = plan[static_cast<size_t>(o)];
    double x = original_coord(p, static_cast<double>(o), in, out, scale, rs, re);
    if (p.coord == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) {
      t.outside = true;
      continue;
    }
    if (p.mode == "nearest") {
      t.index.push_back(std::clamp<int64_t>(nearest_index(p.nearest_mode, x), 0, in - 1));
      t.weight.push_back(1.0);
      continue;
    }
    bool cubic = p.mode == "cubic";
    // The filter is stretched by 1/scale when downscaling with antialias.
    double s = p.antialias ? std::min(scale, 1.0) : 1.0;
    double base = std::floor(x);
    double ratio = x - base;
    double reach = cubic ? 2.0 : 1.0;
    auto i_start = static_cast<int64_t>(std::floor(-reach / s) + 1);
    int64_t i_end = 2 - i_start;  // taps i_start .. 1 - i_start: {0, 1} linear, {-1 .. 2} cubic at s = 1
    double sum = 0;
    for (int64_t i = i_start; i < i_end; ++i) {
      double arg = s * (static_cast<double>(i) - ratio);
      double w = cubic ? cubic_kernel(arg, p.cubic_a) : std::max(0.0, 1.0 - std::fabs(arg));
      int64_t idx = static_cast<int64_t>(base) + i;
      if (p.exclude_outside && (idx < 0 || idx >= in)) w = 0;
      if (w == 0) continue;
      t.index.push_back(std::clamp<int64_t>(idx, 0, in - 1));
      t.weight.push_back(w);
      sum += w;
    }
    if (sum != 0)
      for (double& w : t.weight) w /= sum;
  }
  return plan;
}

Tensor apply_plans(const Tensor& x, const std::vector<std::optional<std::vector<Taps>>>& plans, const Dims& out_dims,
                   double extrapolation) {
  bool all_nearest = true;
  for (const auto& p : plans)
    if (p)
      for (const Taps& t : *p) all_nearest &= !t.outside && t.index.size() == 1;
  size_t rank = out_dims.size();
  if (all_nearest) {
    // Exact gather of elements (any dtype, strings included).
    Tensor y(x.dtype(), out_dims);
    Dims in_strides = strides_of(x.dims());
    Dims idx(rank, 0);
    for (int64_t o = 0; o < y.numel(); ++o) {
      int64_t src = 0;
      for (size_t a = 0; a < rank; ++a) {
        int64_t i = plans[a] ? (*plans[a])[static_cast<size_t>(idx[a])].index[0] : idx[a];
        src += i * in_strides[a];
      }
      tensor::copy_elements(x, src, y, o, 1);
      for (size_t a = rank; a-- > 0;) {
        if (++idx[a] < out_dims[a]) break;
        idx[a] = 0;
      }
    }
    return y;
  }
  // Separable: resize one axis at a time in double.
  Dims cur = x.dims();
  std::vector<double> buf = elements_as_doubles(x);
  for (size_t a = 0; a < rank; ++a) {
    if (!plans[a]) continue;
    const auto& plan = *plans[a];
    int64_t outer = numel_of(Dims(cur.begin(), cur.begin() + static_cast<std::ptrdiff_t>(a)));
    int64_t inner = numel_of(Dims(cur.begin() + static_cast<std::ptrdiff_t>(a) + 1, cur.end()));
    int64_t in_len = cur[a], out_len = out_dims[a];
    std::vector<double> next(static_cast<size_t>(outer * out_len * inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < out_len; ++k) {
        const Taps& t = plan[static_cast<size_t>(k)];
        for (int64_t r = 0; r < inner; ++r) {
          double acc = 0;
          if (t.outside) {
            acc = extrapolation;
          } else {
            for (size_t j = 0; j < t.index.size(); ++j)
              acc += t.weight[j] * buf[static_cast<size_t>((o * in_len + t.index[j]) * inner + r)];
          }
          next[static_cast<size_t>((o * out_len + k) * inner + r)] = acc;
        }
      }
    buf = std::move(next);
    cur[a] = out_len;
  }
  Tensor y(x.dtype(), out_dims);
  store_doubles(y, buf);
  return y;
}

std::vector<double> elements_as_doubles(const Tensor& x) {
  std::vector<double> v(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) v[static_cast<size_t>(i)] = element_as_double(x, i);
  return v;
}

bool store_doubles(Tensor& y, const std::vector<double>& v) {
  return dispatch(y.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.numel() ? y.mutable_data<T>() : nullptr;
    for (int64_t i = 0; i < y.numel(); ++i) {
      double e = v[static_cast<size_t>(i)];
      if constexpr (std::is_integral_v<T>) py[i] = static_cast<T>(std::nearbyint(e));
      else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) py[i] = T(static_cast<float>(e));
      else py[i] = static_cast<T>(e);
    }
  });
}

}  // namespace onnxtrim::ops::image
