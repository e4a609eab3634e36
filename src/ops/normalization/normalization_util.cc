#include "ops/normalization/normalization_util.h"

#include <cmath>

namespace onnxtrim::ops::norm {

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  dispatch(t.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<compute_t<T>>(p[i]));
  });
  return out;
}

Tensor from_doubles(DataType dtype, const Dims& dims, const std::vector<double>& v) {
  Tensor out(dtype, dims);
  dispatch(dtype, kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (v.empty()) return;
    T* p = out.mutable_data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = T(static_cast<compute_t<T>>(v[i]));
  });
  return out;
}

bool is_float_type(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

void mean_and_inv_std(const double* p, int64_t n, double eps, double* mean, double* inv_std) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i];
  double m = n ? s / static_cast<double>(n) : 0;
  double q = 0;
  for (int64_t i = 0; i < n; ++i) q += (p[i] - m) * (p[i] - m);
  double var = n ? q / static_cast<double>(n) : 0;
  *mean = m;
  *inv_std = 1.0 / std::sqrt(var + eps);
}

}  // namespace onnxtrim::ops::norm
