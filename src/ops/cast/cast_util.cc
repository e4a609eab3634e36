#include "ops/cast/cast_util.h"

#include <cinttypes>
#include <cstdio>
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

}  // namespace

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
    case D::kUint8: return in({D::kUint16, D::kUint32, D::kUint64, D::kInt16, D::kInt32, D::kInt64, D::kFloat16, D::kBFloat16, D::kFloat, D::kDouble});
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

bool convert(const Tensor& x, DataType to, bool saturate, Tensor* out, std::string* why) {
  (void)saturate;
  *out = Tensor(to, x.dims());
  int64_t n = x.numel();
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
    *why = "Cast from " + std::string(ir::dtype_name(x.dtype())) + " to " + std::string(ir::dtype_name(to)) + " is not supported";
  return ok;
}

}  // namespace onnxtrim::ops::cast
