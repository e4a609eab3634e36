#include "eval/compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "ops/kernel_util.h"

namespace onnxtrim::eval {

namespace {
std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}
}  // namespace

Diff compare_tensors(const ir::Tensor& a, const ir::Tensor& e, double rtol, double atol, bool scaled) {
  Diff d;
  if (scaled && a.dtype() == ir::DataType::kFloat16) rtol = std::max(rtol, 4.0 / 1024);
  if (scaled && a.dtype() == ir::DataType::kBFloat16) rtol = std::max(rtol, 4.0 / 128);
  if (a.dtype() != e.dtype()) {
    d.ok = false;
    d.why =
        "dtype " + std::string(ir::dtype_name(a.dtype())) + " != expected " + std::string(ir::dtype_name(e.dtype()));
    return d;
  }
  if (a.dims() != e.dims()) {
    d.ok = false;
    d.why = "shape " + dims_str(a.dims()) + " != expected " + dims_str(e.dims());
    return d;
  }
  if (a.dtype() == ir::DataType::kString) {
    if (a.strings() != e.strings()) {
      d.ok = false;
      d.why = "strings differ";
    }
    return d;
  }
  bool handled = ops::dispatch(a.dtype(), ops::kAll, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = a.data<T>();
    const T* pe = e.data<T>();
    double scale = 0, l2_num = 0, l2_den = 0;
    if constexpr (!std::is_integral_v<T>) {
      if (scaled) {
        double sum = 0;
        int64_t n = 0;
        for (int64_t i = 0; i < e.numel(); ++i) {
          double y = static_cast<double>(static_cast<ops::compute_t<T>>(pe[i]));
          if (std::isfinite(y)) {
            sum += y * y;
            ++n;
          }
        }
        scale = n ? std::sqrt(sum / static_cast<double>(n)) : 0.0;
        d.scale = scale;
      }
    }
    for (int64_t i = 0; i < a.numel(); ++i) {
      double x = static_cast<double>(static_cast<ops::compute_t<T>>(pa[i]));
      double y = static_cast<double>(static_cast<ops::compute_t<T>>(pe[i]));
      bool same;
      if constexpr (std::is_integral_v<T>) {
        same = pa[i] == pe[i];
      } else {
        if (std::isnan(x) || std::isnan(y)) same = std::isnan(x) && std::isnan(y);
        else if (std::isinf(x) || std::isinf(y)) same = x == y;
        else same = std::fabs(x - y) <= atol + rtol * std::max(std::fabs(y), scale);
      }
      if (!std::isnan(x) && !std::isnan(y) && !std::isinf(x) && !std::isinf(y)) {
        double diff = std::fabs(x - y);
        l2_num += diff * diff;
        l2_den += y * y;
        d.max_abs = std::max(d.max_abs, diff);
        double denom = std::max(std::fabs(y), scale);
        if (denom != 0) d.max_rel = std::max(d.max_rel, diff / denom);
      }
      if (!same && d.ok) {
        d.ok = false;
        std::ostringstream os;
        os.precision(9);
        os << "element " << i << ": " << x << " != expected " << y;
        d.why = os.str();
      }
    }
    if constexpr (!std::is_integral_v<T>)
      d.rel_l2 = l2_den > 0 ? std::sqrt(l2_num / l2_den) : (l2_num > 0 ? INFINITY : 0);
  });
  if (!handled) {
    // Other types (float8, int4, complex ...): compare bytes; complex as float pairs.
    if (a.dtype() == ir::DataType::kComplex64 || a.dtype() == ir::DataType::kComplex128) {
      ir::Tensor fa = ir::Tensor::shell(
          a.dtype() == ir::DataType::kComplex64 ? ir::DataType::kFloat : ir::DataType::kDouble, {a.numel() * 2});
      ir::Tensor fe = fa;
      fa.set_buffer(a.buffer(), a.buffer_offset(), a.byte_size());
      fe.set_buffer(e.buffer(), e.buffer_offset(), e.byte_size());
      return compare_tensors(fa, fe, rtol, atol, scaled);
    }
    if (a.byte_size() != e.byte_size() || (a.byte_size() && std::memcmp(a.bytes(), e.bytes(), a.byte_size()) != 0)) {
      d.ok = false;
      d.why = "bytes differ";
    }
  }
  return d;
}

namespace {
std::vector<double> as_doubles(const ir::Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  ops::dispatch(t.dtype(), ops::kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i)
      out[static_cast<size_t>(i)] = static_cast<double>(static_cast<ops::compute_t<T>>(p[i]));
  });
  return out;
}

bool is_float_dtype(ir::DataType t) {
  return t == ir::DataType::kFloat || t == ir::DataType::kDouble || t == ir::DataType::kFloat16 ||
         t == ir::DataType::kBFloat16;
}
}  // namespace

Diff compare_tensors_l2(const ir::Tensor& a, const ir::Tensor& e, double l2_tol) {
  if (!is_float_dtype(a.dtype()) || !is_float_dtype(e.dtype())) return compare_tensors(a, e, 0, 0);
  Diff d;
  if (a.dims() != e.dims()) {
    d.ok = false;
    d.why = "shape " + dims_str(a.dims()) + " != expected " + dims_str(e.dims());
    return d;
  }
  std::vector<double> x = as_doubles(a), y = as_doubles(e);
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    bool special = !std::isfinite(x[i]) || !std::isfinite(y[i]);
    if (special) {
      bool same = (std::isnan(x[i]) && std::isnan(y[i])) || x[i] == y[i];
      if (!same && d.ok) {
        d.ok = false;
        std::ostringstream os;
        os.precision(9);
        os << "element " << i << ": " << x[i] << " != expected " << y[i];
        d.why = os.str();
      }
      continue;
    }
    double diff = std::fabs(x[i] - y[i]);
    d.max_abs = std::max(d.max_abs, diff);
    if (y[i] != 0) d.max_rel = std::max(d.max_rel, diff / std::fabs(y[i]));
    num += diff * diff;
    den += y[i] * y[i];
  }
  d.scale = x.empty() ? 0 : std::sqrt(den / static_cast<double>(x.size()));
  d.rel_l2 = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0);
  if (d.ok && !(d.rel_l2 <= l2_tol)) {
    d.ok = false;
    std::ostringstream os;
    os.precision(3);
    os << "relative L2 error " << d.rel_l2 << " > " << l2_tol;
    d.why = os.str();
  }
  return d;
}

Diff compare_values(const ir::RuntimeValue& a, const ir::RuntimeValue& e, double rtol, double atol, bool scaled,
                    double l2_tol) {
  Diff d;
  if (a.kind != e.kind) {
    d.ok = false;
    d.why = "kind of value differs (tensor/sequence/optional)";
    return d;
  }
  switch (a.kind) {
    case ir::RuntimeValue::Kind::kTensor:
      if (l2_tol > 0) return compare_tensors_l2(a.tensor, e.tensor, l2_tol);
      return compare_tensors(a.tensor, e.tensor, rtol, atol, scaled);
    case ir::RuntimeValue::Kind::kSequence:
    case ir::RuntimeValue::Kind::kOptional:
    case ir::RuntimeValue::Kind::kMap: {
      if (a.elems.size() != e.elems.size()) {
        d.ok = false;
        d.why = "has " + std::to_string(a.elems.size()) + " elements, expected " + std::to_string(e.elems.size());
        return d;
      }
      if (a.kind == ir::RuntimeValue::Kind::kMap) {
        Diff k = compare_tensors(a.tensor, e.tensor, rtol, atol);
        if (!k.ok) return k;
      }
      for (size_t i = 0; i < a.elems.size(); ++i) {
        Diff x = compare_values(a.elems[i], e.elems[i], rtol, atol, scaled, l2_tol);
        d.rel_l2 = std::max(d.rel_l2, x.rel_l2);
        d.max_abs = std::max(d.max_abs, x.max_abs);
        d.max_rel = std::max(d.max_rel, x.max_rel);
        if (!x.ok && d.ok) {
          d.ok = false;
          d.why = "element " + std::to_string(i) + ": " + x.why;
        }
      }
      return d;
    }
    default: return d;
  }
}

}  // namespace onnxtrim::eval
