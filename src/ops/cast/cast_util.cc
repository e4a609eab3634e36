#include "ops/cast/cast_util.h"

#include <cinttypes>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <limits>

namespace onnxtrim::ops::cast {

namespace {

template <typename To, typename From>
To convert_one(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(static_cast<compute_t<From>>(v)) != 0.0;
  } else if constexpr (std::is_integral_v<To>) {
    if constexpr (std::is_integral_v<From>) {
      return static_cast<To>(v);  // wraps (two's complement), as numpy's astype does
    } else {
      double d = static_cast<double>(static_cast<compute_t<From>>(v));
      if (std::isnan(d)) return To(0);
      // Out of range is undefined in the spec: saturate instead of invoking UB.
      if (d <= static_cast<double>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
      if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
      return static_cast<To>(d);
    }
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_integral_v<From>) return To(static_cast<float>(static_cast<double>(v)));
    else return To(static_cast<float>(static_cast<compute_t<From>>(v)));
  } else {
    if constexpr (std::is_integral_v<From>) return static_cast<To>(v);
    else return static_cast<To>(static_cast<compute_t<From>>(v));
  }
}

std::string to_text(double v, DataType from) {
  char buf[64];
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  if (from == DataType::kDouble) std::snprintf(buf, sizeof buf, "%.17g", v);
  else std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// ---- the small types: float8 variants, float4e2m1, and 2/4-bit integers, through double

struct SmallFloat {
  int e_bits, m_bits, bias;
  bool ieee_inf;  // e5m2: all-ones exponent is inf/NaN
  bool uz;        // fnuz: no negative zero, NaN is 0x80
  bool fn_nan;    // e4m3fn: S.1111.111 is NaN, no inf
  bool has_nan;   // float4e2m1 has none
};

const SmallFloat* small_float(DataType t) {
  static const SmallFloat e4m3fn{4, 3, 7, false, false, true, true};
  static const SmallFloat e4m3fnuz{4, 3, 8, false, true, false, true};
  static const SmallFloat e5m2{5, 2, 15, true, false, false, true};
  static const SmallFloat e5m2fnuz{5, 2, 16, false, true, false, true};
  static const SmallFloat e2m1{2, 1, 1, false, false, false, false};
  switch (t) {
    case DataType::kFloat8E4M3FN: return &e4m3fn;
    case DataType::kFloat8E4M3FNUZ: return &e4m3fnuz;
    case DataType::kFloat8E5M2: return &e5m2;
    case DataType::kFloat8E5M2FNUZ: return &e5m2fnuz;
    case DataType::kFloat4E2M1: return &e2m1;
    default: return nullptr;
  }
}

double decode_small(const SmallFloat& f, uint32_t c) {
  int total = 1 + f.e_bits + f.m_bits;
  uint32_t sign = (c >> (total - 1)) & 1;
  uint32_t e = (c >> f.m_bits) & ((1u << f.e_bits) - 1);
  uint32_t m = c & ((1u << f.m_bits) - 1);
  if (f.uz && c == (1u << (total - 1))) return std::nan("");
  if (f.fn_nan && e == (1u << f.e_bits) - 1 && m == (1u << f.m_bits) - 1) return std::nan("");
  if (f.ieee_inf && e == (1u << f.e_bits) - 1) return m ? std::nan("") : (sign ? -INFINITY : INFINITY);
  double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.m_bits)
                    : std::ldexp(1.0 + static_cast<double>(m) / (1 << f.m_bits), static_cast<int>(e) - f.bias);
  return sign ? -v : v;
}

uint32_t encode_small(const SmallFloat& f, double v, bool saturate) {
  int total = 1 + f.e_bits + f.m_bits;
  uint32_t sign_bit = 1u << (total - 1);
  // NaN: 0x80 for fnuz, all ones for e4m3fn, the quiet NaN (exponent all ones, top mantissa bit)
  // for e5m2; float4e2m1 has no NaN and the reference maps it to the negative-zero code.
  uint32_t nan_code =
      f.uz ? sign_bit
           : (f.fn_nan ? (sign_bit - 1)
                       : (f.ieee_inf ? ((((1u << f.e_bits) - 1) << f.m_bits) | (1u << (f.m_bits - 1))) : sign_bit));
  // The largest finite magnitude and its code.
  uint32_t max_code = 0;
  double max_v = 0;
  for (uint32_t c = 0; c < sign_bit; ++c) {
    double d = decode_small(f, c);
    if (std::isfinite(d) && d > max_v) {
      max_v = d;
      max_code = c;
    }
  }
  if (std::isnan(v))
    return f.has_nan ? (f.uz ? nan_code : (std::signbit(v) ? sign_bit | nan_code : nan_code)) : nan_code;
  uint32_t sign = std::signbit(v) ? sign_bit : 0;
  double a = std::fabs(v);
  if (a == 0) return f.uz ? 0 : sign;
  auto overflow = [&]() -> uint32_t {
    if (saturate || !f.has_nan) return sign | max_code;
    if (f.ieee_inf) return sign | (((1u << f.e_bits) - 1) << f.m_bits);
    return f.uz ? nan_code : (sign | nan_code);
  };
  if (std::isinf(a)) return overflow();
  // Nearest representable magnitude, ties to the even code.
  uint32_t best = 0;
  double best_d = INFINITY;
  for (uint32_t c = 0; c <= max_code; ++c) {
    double d = decode_small(f, c);
    if (!std::isfinite(d)) continue;
    double diff = std::fabs(d - a);
    if (diff < best_d || (diff == best_d && (c & 1) == 0)) {
      best_d = diff;
      best = c;
    }
  }
  if (a > max_v) {
    // Past the largest value: RNE would round up beyond it when past the halfway point.
    double prev = decode_small(f, max_code - 1);
    double half_ulp = (max_v - prev) / 2;
    if (a >= max_v + half_ulp) return overflow();
    return sign | max_code;
  }
  if (best == 0 && f.uz) return 0;
  return sign | best;
}

int small_int_bits(DataType t) {
  switch (t) {
    case DataType::kInt4:
    case DataType::kUint4: return 4;
    case DataType::kInt2:
    case DataType::kUint2: return 2;
    default: return 0;
  }
}

bool is_small(DataType t) { return small_float(t) != nullptr || small_int_bits(t) != 0; }

double read_any(const Tensor& t, int64_t i) {
  DataType dt = t.dtype();
  if (const SmallFloat* f = small_float(dt)) {
    int bits = ir::dtype_bits(dt);
    if (bits == 8) return decode_small(*f, t.bytes()[i]);
    uint32_t code = (t.bytes()[i / 2] >> ((i % 2) * 4)) & 0xF;
    return decode_small(*f, code);
  }
  if (int bits = small_int_bits(dt)) {
    int per = 8 / bits;
    uint32_t code = (t.bytes()[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1);
    if (ir::dtype_is_signed(dt) && (code >> (bits - 1)))
      return static_cast<double>(static_cast<int>(code) - (1 << bits));
    return static_cast<double>(code);
  }
  return element_as_double(t, i);
}

void write_small(Tensor& t, int64_t i, double v, bool saturate, bool from_integer) {
  DataType dt = t.dtype();
  uint32_t code;
  int bits = ir::dtype_bits(dt);
  if (const SmallFloat* f = small_float(dt)) {
    code = encode_small(*f, v, saturate);
  } else {
    int64_t lo = ir::dtype_is_signed(dt) ? -(int64_t{1} << (bits - 1)) : 0;
    int64_t hi = ir::dtype_is_signed(dt) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    int64_t x;
    (void)lo;
    (void)hi;
    // Keep the low bits (two's complement), as the wider integer casts do; floats are rounded
    // to the nearest integer first.
    double r = from_integer ? v : std::nearbyint(v);
    if (std::isnan(r) || std::isinf(r)) r = 0;
    x = static_cast<int64_t>(std::fmod(r, 4294967296.0));
    code = static_cast<uint32_t>(x) & ((1u << bits) - 1);
  }
  if (bits == 8) {
    t.mutable_bytes()[i] = static_cast<uint8_t>(code);
    return;
  }
  int per = 8 / bits;
  uint8_t& byte = t.mutable_bytes()[i / per];
  int shift = static_cast<int>((i % per) * bits);
  byte = static_cast<uint8_t>((byte & ~(((1u << bits) - 1) << shift)) | (code << shift));
}

// float8e8m0: an unsigned power of two 2^(code - 127); code 255 is NaN. The float32 exponent
// field has the same bias, so the code is that field, rounded by the mantissa bits.
double decode_e8m0(uint8_t c) { return c == 255 ? std::nan("") : std::ldexp(1.0, static_cast<int>(c) - 127); }

uint8_t encode_e8m0(double v, bool saturate, E8M0Round round) {
  if (std::isnan(v)) return 255;
  if (std::isinf(v)) return saturate ? 254 : 255;
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  uint32_t e = (bits >> 23) & 0xFF;
  uint32_t m = bits & 0x7FFFFF;
  if (e == 0xFF) return saturate ? 254 : 255;  // float overflowed to inf
  if (round == E8M0Round::kUp && m != 0) ++e;
  else if (round == E8M0Round::kNearest && (m & 0x400000)) ++e;
  if (e > 254) return saturate ? 254 : 255;
  return static_cast<uint8_t>(e);
}

}  // namespace

bool parse_e8m0_round(const std::string& s, E8M0Round* r) {
  if (s == "up") *r = E8M0Round::kUp;
  else if (s == "down") *r = E8M0Round::kDown;
  else if (s == "nearest") *r = E8M0Round::kNearest;
  else return false;
  return true;
}

bool holds_exactly(DataType from, DataType to) {
  using D = DataType;
  if (from == to) return true;
  if (from == D::kBool) return to != D::kString && ir::dtype_bits(to) >= 8;
  auto in = [&](std::initializer_list<D> l) {
    for (D d : l)
      if (d == to) return true;
    return false;
  };
  switch (from) {
    case D::kUint8:
      return in({D::kUint16, D::kUint32, D::kUint64, D::kInt16, D::kInt32, D::kInt64, D::kFloat16, D::kBFloat16,
                 D::kFloat, D::kDouble});
    case D::kInt8: return in({D::kInt16, D::kInt32, D::kInt64, D::kFloat16, D::kBFloat16, D::kFloat, D::kDouble});
    case D::kUint16: return in({D::kUint32, D::kUint64, D::kInt32, D::kInt64, D::kFloat, D::kDouble});
    case D::kInt16: return in({D::kInt32, D::kInt64, D::kFloat, D::kDouble});
    case D::kUint32: return in({D::kUint64, D::kInt64, D::kDouble});
    case D::kInt32: return in({D::kInt64, D::kDouble});
    case D::kFloat16: return in({D::kFloat, D::kDouble});
    case D::kBFloat16: return in({D::kFloat, D::kDouble});
    case D::kFloat: return in({D::kDouble});
    default: return false;
  }
}

bool convert(const Tensor& x, DataType to, bool saturate, Tensor* out, std::string* why, E8M0Round round) {
  *out = Tensor(to, x.dims());
  int64_t n = x.numel();
  if (x.dtype() == DataType::kFloat8E8M0 || to == DataType::kFloat8E8M0) {
    if (x.dtype() == DataType::kString || to == DataType::kString) {
      *why = "Cast between string and float8e8m0 is not supported";
      return false;
    }
    if (x.dtype() == to) {
      *out = x;
      return true;
    }
    if (to == DataType::kFloat8E8M0) {
      for (int64_t i = 0; i < n; ++i) out->mutable_bytes()[i] = encode_e8m0(read_any(x, i), saturate, round);
      return true;
    }
    Tensor d(DataType::kDouble, x.dims());
    for (int64_t i = 0; i < n; ++i) d.mutable_data<double>()[i] = decode_e8m0(x.bytes()[i]);
    return convert(d, to, saturate, out, why);
  }
  if ((is_small(x.dtype()) || is_small(to)) && x.dtype() != DataType::kString && to != DataType::kString) {
    // Through double: exact for every value these types hold.
    bool from_int = ir::dtype_is_integer(x.dtype()) || x.dtype() == DataType::kBool;
    if (is_small(to)) {
      for (int64_t i = 0; i < n; ++i) write_small(*out, i, read_any(x, i), saturate, from_int);
      return true;
    }
    Tensor d(DataType::kDouble, x.dims());
    for (int64_t i = 0; i < n; ++i) d.mutable_data<double>()[i] = read_any(x, i);
    if (ir::dtype_is_integer(to) && !ir::dtype_is_float(x.dtype())) {
      // Small ints to wider ints: exact integers.
      Tensor l(DataType::kInt64, x.dims());
      for (int64_t i = 0; i < n; ++i) l.mutable_data<int64_t>()[i] = static_cast<int64_t>(d.data<double>()[i]);
      return convert(l, to, saturate, out, why);
    }
    return convert(d, to, saturate, out, why);
  }
  if (x.dtype() == DataType::kString && to == DataType::kString) {
    out->strings() = x.strings();
    return true;
  }
  if (x.dtype() == DataType::kString) {
    bool ok = dispatch(to, kAll, [&](auto tag) {
      using To = typename decltype(tag)::type;
      To* p = n ? out->mutable_data<To>() : nullptr;
      for (int64_t i = 0; i < n; ++i) {
        const std::string& s = x.strings()[static_cast<size_t>(i)];
        if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool>) {
          if constexpr (std::is_signed_v<To>) p[i] = static_cast<To>(std::strtoll(s.c_str(), nullptr, 10));
          else p[i] = static_cast<To>(std::strtoull(s.c_str(), nullptr, 10));
        } else {
          double d = std::strtod(s.c_str(), nullptr);
          p[i] = convert_one<To>(d);
        }
      }
    });
    if (!ok) *why = "Cast from string to " + std::string(ir::dtype_name(to)) + " is not supported";
    return ok;
  }
  if (to == DataType::kString) {
    bool ok = dispatch(x.dtype(), kAll, [&](auto tag) {
      using From = typename decltype(tag)::type;
      const From* p = x.data<From>();
      for (int64_t i = 0; i < n; ++i) {
        auto& s = out->strings()[static_cast<size_t>(i)];
        if constexpr (std::is_same_v<From, bool>) s = p[i] ? "1" : "0";
        else if constexpr (std::is_integral_v<From>) s = std::to_string(p[i]);
        else s = to_text(static_cast<double>(static_cast<compute_t<From>>(p[i])), x.dtype());
      }
    });
    if (!ok) *why = "Cast from " + std::string(ir::dtype_name(x.dtype())) + " to string is not supported";
    return ok;
  }
  bool ok = false;
  dispatch(x.dtype(), kAll, [&](auto ftag) {
    using From = typename decltype(ftag)::type;
    ok = dispatch(to, kAll, [&](auto ttag) {
      using To = typename decltype(ttag)::type;
      const From* p = x.data<From>();
      To* q = n ? out->mutable_data<To>() : nullptr;
      for (int64_t i = 0; i < n; ++i) q[i] = convert_one<To>(p[i]);
    });
  });
  if (!ok)
    *why = "Cast from " + std::string(ir::dtype_name(x.dtype())) + " to " + std::string(ir::dtype_name(to)) +
           " is not supported";
  return ok;
}

}  // namespace onnxtrim::ops::cast
