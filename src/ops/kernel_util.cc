#include "ops/kernel_util.h"

#include <climits>

#include "support/limits.h"

#include <algorithm>

namespace onnxtrim::ops {

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t u;
  if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      u = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000;
  uint32_t absu = u & 0x7fffffff;
  if (absu >= 0x7f800000) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00 | (absu > 0x7f800000 ? 0x200 | ((absu >> 13) & 0x3ff) : 0));
  }
  if (absu >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // overflow -> inf (after rounding)
  if (absu < 0x38800000) {                                              // subnormal or zero in half
    if (absu < 0x33000000) return static_cast<uint16_t>(sign);          // < half of smallest subnormal
    uint32_t mant = (absu & 0x7fffff) | 0x800000;
    int shift = 113 - static_cast<int>(absu >> 23);  // 126 - 14 + 1
    uint32_t r = mant >> (shift + 13);
    uint32_t rem = mant & ((1u << (shift + 13)) - 1);
    uint32_t half = 1u << (shift + 12);
    if (rem > half || (rem == half && (r & 1))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t e = (absu >> 23) - 127 + 15;
  uint32_t mant = absu & 0x7fffff;
  uint32_t r = (e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) ++r;
  return static_cast<uint16_t>(sign | r);
}

uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  uint32_t lsb = (u >> 16) & 1;
  u += 0x7fff + lsb;
  return static_cast<uint16_t>(u >> 16);
}

int64_t numel_of(const Dims& d) {
  // Saturates instead of overflowing: a count past int64 can only be refused (the Tensor
  // that would hold it refuses to exist, see support/limits.h).
  int64_t n = checked_numel(d);
  return n < 0 ? INT64_MAX : n;
}

Dims strides_of(const Dims& d) {
  Dims s(d.size(), 1);
  for (int64_t i = static_cast<int64_t>(d.size()) - 2; i >= 0; --i)
    s[static_cast<size_t>(i)] = s[static_cast<size_t>(i) + 1] * d[static_cast<size_t>(i) + 1];
  return s;
}

std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<Dims> broadcast_shapes(const Dims& a, const Dims& b) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else return std::nullopt;
  }
  return out;
}

std::optional<Dims> broadcast_shapes(const std::vector<Dims>& all) {
  Dims acc;
  for (const auto& d : all) {
    auto r = broadcast_shapes(acc, d);
    if (!r) return std::nullopt;
    acc = *r;
  }
  return acc;
}

Dims broadcast_strides(const Dims& in, const Dims& out) {
  Dims strides(out.size(), 0);
  Dims s = strides_of(in);
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) strides[off + i] = in[i] == 1 ? 0 : s[i];
  return strides;
}

BroadcastIndex::BroadcastIndex(const Dims& in, const Dims& out)
    : out_(out), in_strides_(broadcast_strides(in, out)), counter_(out.size(), 0) {}

void BroadcastIndex::next() {
  for (int64_t i = static_cast<int64_t>(out_.size()) - 1; i >= 0; --i) {
    auto k = static_cast<size_t>(i);
    if (++counter_[k] < out_[k]) {
      offset_ += in_strides_[k];
      return;
    }
    offset_ -= in_strides_[k] * (counter_[k] - 1);
    counter_[k] = 0;
  }
}

std::vector<int64_t> to_int64_vector(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DataType::kInt64: out[static_cast<size_t>(i)] = t.data<int64_t>()[i]; break;
      case DataType::kInt32: out[static_cast<size_t>(i)] = t.data<int32_t>()[i]; break;
      case DataType::kInt16: out[static_cast<size_t>(i)] = t.data<int16_t>()[i]; break;
      case DataType::kInt8: out[static_cast<size_t>(i)] = t.data<int8_t>()[i]; break;
      case DataType::kUint8: out[static_cast<size_t>(i)] = t.data<uint8_t>()[i]; break;
      case DataType::kUint16: out[static_cast<size_t>(i)] = t.data<uint16_t>()[i]; break;
      case DataType::kUint32: out[static_cast<size_t>(i)] = t.data<uint32_t>()[i]; break;
      case DataType::kUint64: out[static_cast<size_t>(i)] = static_cast<int64_t>(t.data<uint64_t>()[i]); break;
      case DataType::kBool: out[static_cast<size_t>(i)] = t.data<uint8_t>()[i] != 0; break;
      default: out[static_cast<size_t>(i)] = static_cast<int64_t>(element_as_double(t, i)); break;
    }
  }
  return out;
}

double element_as_double(const Tensor& t, int64_t i) {
  double v = 0;
  dispatch(t.dtype(), kAll, [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<double>(static_cast<compute_t<T>>(t.data<T>()[i]));
  });
  return v;
}

void store_double(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DataType::kFloat: t.mutable_data<float>()[i] = static_cast<float>(v); break;
    case DataType::kDouble: t.mutable_data<double>()[i] = v; break;
    case DataType::kFloat16: t.mutable_data<Half>()[i] = Half(static_cast<float>(v)); break;
    case DataType::kBFloat16: t.mutable_data<BFloat16>()[i] = BFloat16(static_cast<float>(v)); break;
    default: break;
  }
}

}  // namespace onnxtrim::ops
