#include "ops/normalization/normalization_util.h"

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

}  // namespace onnxtrim::ops::norm
