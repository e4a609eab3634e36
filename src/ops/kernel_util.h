// Shared helpers for op kernels: 16-bit float types, dtype dispatch, broadcasting, axes.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/tensor.h"
#include "ops/registry.h"

namespace onnxtrim::ops {

using ir::DataType;
using ir::Tensor;

// ---------------------------------------------------------------- 16-bit floats

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);  // round to nearest even
inline float bf16_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f);  // round to nearest even, NaN kept NaN

// Storage types that compute through float (arithmetic happens in float, results are
// rounded back), as numpy and ONNX Runtime do for float16.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(float_to_half(f)) {}
  operator float() const { return half_to_float(bits); }  // NOLINT
};
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(float_to_bf16(f)) {}
  operator float() const { return bf16_to_float(bits); }  // NOLINT
};
static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

template <typename T>
inline constexpr bool is_half_like = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// The type arithmetic on T is done in: float for Half/BFloat16, T otherwise.
template <typename T>
using compute_t = std::conditional_t<is_half_like<T>, float, T>;

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with the C++ storage type of dtype; returns false when dtype is not
// among the ones listed by the flags. bool is stored as uint8_t-sized `bool`.
enum DispatchSet : unsigned {
  kFloats = 1,    // float, double, float16, bfloat16
  kSigned = 2,    // int8..int64
  kUnsigned = 4,  // uint8..uint64
  kBool = 8,
  kAllNumeric = kFloats | kSigned | kUnsigned,
  kAll = kAllNumeric | kBool,
};

template <typename F>
bool dispatch(DataType t, unsigned set, F&& f) {
  switch (t) {
    case DataType::kFloat:
      if (set & kFloats) {
        f(TypeTag<float>{});
        return true;
      }
      break;
    case DataType::kDouble:
      if (set & kFloats) {
        f(TypeTag<double>{});
        return true;
      }
      break;
    case DataType::kFloat16:
      if (set & kFloats) {
        f(TypeTag<Half>{});
        return true;
      }
      break;
    case DataType::kBFloat16:
      if (set & kFloats) {
        f(TypeTag<BFloat16>{});
        return true;
      }
      break;
    case DataType::kInt8:
      if (set & kSigned) {
        f(TypeTag<int8_t>{});
        return true;
      }
      break;
    case DataType::kInt16:
      if (set & kSigned) {
        f(TypeTag<int16_t>{});
        return true;
      }
      break;
    case DataType::kInt32:
      if (set & kSigned) {
        f(TypeTag<int32_t>{});
        return true;
      }
      break;
    case DataType::kInt64:
      if (set & kSigned) {
        f(TypeTag<int64_t>{});
        return true;
      }
      break;
    case DataType::kUint8:
      if (set & kUnsigned) {
        f(TypeTag<uint8_t>{});
        return true;
      }
      break;
    case DataType::kUint16:
      if (set & kUnsigned) {
        f(TypeTag<uint16_t>{});
        return true;
      }
      break;
    case DataType::kUint32:
      if (set & kUnsigned) {
        f(TypeTag<uint32_t>{});
        return true;
      }
      break;
    case DataType::kUint64:
      if (set & kUnsigned) {
        f(TypeTag<uint64_t>{});
        return true;
      }
      break;
    case DataType::kBool:
      if (set & kBool) {
        f(TypeTag<bool>{});
        return true;
      }
      break;
    default: break;
  }
  return false;
}

template <typename T>
constexpr DataType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DataType::kFloat;
  else if constexpr (std::is_same_v<T, double>) return DataType::kDouble;
  else if constexpr (std::is_same_v<T, Half>) return DataType::kFloat16;
  else if constexpr (std::is_same_v<T, BFloat16>) return DataType::kBFloat16;
  else if constexpr (std::is_same_v<T, int8_t>) return DataType::kInt8;
  else if constexpr (std::is_same_v<T, int16_t>) return DataType::kInt16;
  else if constexpr (std::is_same_v<T, int32_t>) return DataType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>) return DataType::kInt64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DataType::kUint8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DataType::kUint16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DataType::kUint32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DataType::kUint64;
  else if constexpr (std::is_same_v<T, bool>) return DataType::kBool;
  else return DataType::kUndefined;
}

// ---------------------------------------------------------------- shapes and axes

using Dims = std::vector<int64_t>;

int64_t numel_of(const Dims& d);
Dims strides_of(const Dims& d);  // row-major element strides
// Normalises a possibly negative axis into [0, rank); nullopt when out of range.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank);
// Multidirectional (numpy) broadcasting of shapes; nullopt when incompatible.
std::optional<Dims> broadcast_shapes(const Dims& a, const Dims& b);
std::optional<Dims> broadcast_shapes(const std::vector<Dims>& all);

// For each element of `out` (row-major), the offset of the element of an input of shape
// `in` (right-aligned, broadcast) that it reads. Cheap iterator: call next() in order.
// The strides of an input of dims `in` read as broadcast to `out` (aligned at the last axis):
// out's rank of them, 0 where the input has no axis or an axis of 1.
Dims broadcast_strides(const Dims& in, const Dims& out);

class BroadcastIndex {
 public:
  BroadcastIndex(const Dims& in, const Dims& out);
  int64_t offset() const { return offset_; }
  void next();

 private:
  Dims out_;
  Dims in_strides_;  // 0 where broadcast
  Dims counter_;
  int64_t offset_ = 0;
};

// Reads a 1-D or scalar integer tensor (int32/int64, any of the int types) as int64 values.
std::vector<int64_t> to_int64_vector(const Tensor& t);
// Reads element i of any numeric tensor as double / int64.
double element_as_double(const Tensor& t, int64_t i);
// Writes v into element i of a float tensor (float, double, float16, bfloat16), rounded to its
// element type; a tensor of another type is left as it is.
void store_double(Tensor& t, int64_t i, double v);

template <typename T>
Tensor make_tensor(const Dims& dims, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), dims);
  if (!values.empty()) std::memcpy(t.mutable_bytes(), values.data(), values.size() * sizeof(T));
  return t;
}

// Applies f(a, b) elementwise with broadcasting; Out is the output storage type.
template <typename In, typename Out, typename F>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, const Dims& out_dims, DataType out_type, F&& f) {
  Tensor out(out_type, out_dims);
  const In* pa = a.data<In>();
  const In* pb = b.data<In>();
  Out* po = out.mutable_data<Out>();
  int64_t n = numel_of(out_dims);
  if (a.dims() == out_dims && b.dims() == out_dims) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
  } else if (b.numel() == 1 && a.dims() == out_dims) {
    In vb = pb[0];
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], vb);
  } else if (a.numel() == 1 && b.dims() == out_dims) {
    In va = pa[0];
    for (int64_t i = 0; i < n; ++i) po[i] = f(va, pb[i]);
  } else if (n > 0) {
    // A row of the last axis at a time: within a row each operand steps by one element or
    // stays on one (broadcast), so the row is a plain loop; the rows are walked by counters.
    const size_t r = out_dims.size();
    const Dims sa = broadcast_strides(a.dims(), out_dims), sb = broadcast_strides(b.dims(), out_dims);
    const int64_t inner = out_dims[r - 1];
    std::vector<int64_t> idx(r, 0);
    int64_t oa = 0, ob = 0;
    for (int64_t row = 0; row < n; row += inner) {
      Out* o = po + row;
      const In* ra = pa + oa;
      const In* rb = pb + ob;
      if (sa[r - 1] != 0 && sb[r - 1] != 0) {
        for (int64_t j = 0; j < inner; ++j) o[j] = f(ra[j], rb[j]);
      } else if (sa[r - 1] != 0) {
        const In vb = *rb;
        for (int64_t j = 0; j < inner; ++j) o[j] = f(ra[j], vb);
      } else if (sb[r - 1] != 0) {
        const In va = *ra;
        for (int64_t j = 0; j < inner; ++j) o[j] = f(va, rb[j]);
      } else {
        for (int64_t j = 0; j < inner; ++j) o[j] = f(*ra, *rb);
      }
      for (size_t k = r - 1; k-- > 0;) {
        if (++idx[k] < out_dims[k]) {
          oa += sa[k];
          ob += sb[k];
          break;
        }
        oa -= sa[k] * (out_dims[k] - 1);
        ob -= sb[k] * (out_dims[k] - 1);
        idx[k] = 0;
      }
    }
  }
  return out;
}

}  // namespace onnxtrim::ops
