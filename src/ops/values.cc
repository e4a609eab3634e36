#include "ops/values.h"

namespace onnxtrim::ops {

bool tracks_values(ir::DataType t) { return t == ir::DataType::kBool || ir::dtype_is_integer(t); }

void propagate_values(InferContext& ctx, const std::vector<size_t>& which, ValueFn f) {
  if (!ctx.has_output(0) || !tracks_values(ctx.output(0).elem)) return;
  size_t n = 1;
  bool any_empty = false;
  for (size_t i : which) {
    if (i >= ctx.num_inputs() || !ctx.has_input(i)) return;
    const TypeInfo& t = ctx.input(i);
    if (!t.values || !t.shape || t.shape->size() > 1) return;
    size_t k = t.values->size();
    if (k == 0) any_empty = true;
    else if (k != 1) {
      if (n != 1 && n != k) return;
      n = k;
    }
  }
  if (any_empty) {
    if (n != 1) return;
    n = 0;
  }
  const TypeInfo& o = ctx.output(0);
  if (!o.shape || o.shape->size() > 1) return;
  std::vector<Expr> out;
  out.reserve(n);
  std::vector<Expr> args(which.size());
  for (size_t e = 0; e < n; ++e) {
    for (size_t j = 0; j < which.size(); ++j) {
      const auto& v = *ctx.input(which[j]).values;
      args[j] = v[v.size() == 1 ? 0 : e];
    }
    auto r = f(args, ctx);
    if (!r) return;
    out.push_back(std::move(*r));
  }
  ctx.output(0).values = std::move(out);
}

void propagate_absorbing(InferContext& ctx, int64_t z) {
  if (!ctx.has_output(0) || ctx.output(0).values || !tracks_values(ctx.output(0).elem)) return;
  bool absorbed = false;
  for (size_t i = 0; i < ctx.num_inputs() && !absorbed; ++i) {
    if (!ctx.has_input(i)) continue;
    const TypeInfo& t = ctx.input(i);
    if (!t.values || t.values->empty()) continue;
    bool all = true;
    for (const Expr& e : *t.values) {
      auto c = e.constant_value();
      all &= c && ((*c != 0) == (z != 0));
    }
    absorbed = all;
  }
  if (!absorbed) return;
  auto dims = ctx.output(0).static_shape();
  if (!dims || dims->size() > 1) return;
  size_t n = dims->empty() ? 1 : static_cast<size_t>((*dims)[0]);
  if (n > kMaxPropagated) return;
  ctx.output(0).values = std::vector<Expr>(n, Expr::constant(z));
}

std::optional<Expr> int_div(const Expr& a, const Expr& b) {
  auto ac = a.constant_value(), bc = b.constant_value();
  if (ac && bc) {
    if (*bc == 0 || (*ac == INT64_MIN && *bc == -1)) return std::nullopt;
    return Expr::constant(*ac / *bc);  // C++ truncates, as ONNX integer Div does
  }
  // Truncation equals floor division when the quotient is never negative.
  symbolic::Bounds ab = symbolic::bounds(a), bb = symbolic::bounds(b);
  if (!bb.lo || *bb.lo < 1) return std::nullopt;
  if (ab.lo && *ab.lo >= 0) return Expr::floordiv(a, b);
  if (ab.hi && *ab.hi <= 0) return Expr::constant(0) - Expr::floordiv(Expr::constant(0) - a, b);
  return std::nullopt;
}

std::optional<Expr> int_mod(const Expr& a, const Expr& b, bool fmod) {
  auto ac = a.constant_value(), bc = b.constant_value();
  if (ac && bc) {
    if (*bc == 0 || (*ac == INT64_MIN && *bc == -1)) return std::nullopt;
    int64_t r = *ac % *bc;  // the dividend's sign (fmod)
    if (!fmod && r != 0 && ((r < 0) != (*bc < 0))) r += *bc;
    return Expr::constant(r);
  }
  // Both conventions are floor's when the divisor is positive and the dividend never negative.
  symbolic::Bounds ab = symbolic::bounds(a), bb = symbolic::bounds(b);
  if (!bb.lo || *bb.lo < 1) return std::nullopt;
  if (!fmod || (ab.lo && *ab.lo >= 0)) return Expr::mod(a, b);
  return std::nullopt;
}

std::optional<Expr> cast_value(const Expr& v, ir::DataType to) {
  using DT = ir::DataType;
  if (to == DT::kBool) {
    auto z = symbolic::prove_eq(v, Expr::constant(0));
    if (!z) return std::nullopt;
    return truth(!*z);
  }
  if (auto c = v.constant_value()) {
    int64_t x = *c;
    switch (to) {
      case DT::kInt8: return Expr::constant(static_cast<int8_t>(x));
      case DT::kInt16: return Expr::constant(static_cast<int16_t>(x));
      case DT::kInt32: return Expr::constant(static_cast<int32_t>(x));
      case DT::kInt64: return Expr::constant(x);
      case DT::kUint8: return Expr::constant(static_cast<uint8_t>(x));
      case DT::kUint16: return Expr::constant(static_cast<uint16_t>(x));
      case DT::kUint32: return Expr::constant(static_cast<uint32_t>(x));
      case DT::kUint64:
        if (x >= 0) return Expr::constant(x);
        return std::nullopt;
      default: return std::nullopt;
    }
  }
  symbolic::Bounds b = symbolic::bounds(v);
  auto fits = [&](int64_t lo, std::optional<int64_t> hi) {
    if (!b.lo || *b.lo < lo) return false;
    return !hi || (b.hi && *b.hi <= *hi) || (!b.hi && *b.lo >= 0 && *hi >= INT32_MAX);
  };
  if (to == DT::kInt64) return v;
  if (to == DT::kUint64) {
    if (b.lo && *b.lo >= 0) return v;
    return std::nullopt;
  }
  // The 8-, 16- and 32-bit integer types: v when its bounds lie in the type's range.
  int bits = ir::dtype_bits(to);
  if (!ir::dtype_is_integer(to) || (bits != 8 && bits != 16 && bits != 32)) return std::nullopt;
  bool sgn = ir::dtype_is_signed(to);
  int64_t lo = sgn ? -(int64_t{1} << (bits - 1)) : 0;
  int64_t hi = sgn ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  if (fits(lo, hi)) return v;
  return std::nullopt;
}

}  // namespace onnxtrim::ops
