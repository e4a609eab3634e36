#include "symbolic/expr.h"

#include "symbolic/bounds.h"

#include <algorithm>
#include <atomic>
#include <cctype>

namespace onnxtrim::symbolic {

namespace {

enum class AtomKind { kSymbol, kFresh, kUnknown, kFloorDiv, kMod, kMin, kMax };

struct AtomNode {
  AtomKind kind;
  std::string name;  // symbol name
  Expr a, b;         // operands
  std::string key;   // canonical, unambiguous
  size_t size = 1;
};
using Atom = std::shared_ptr<const AtomNode>;

struct Term {
  int64_t coef = 0;
  std::vector<Atom> atoms;  // sorted by key; a product (with multiplicity)
  std::string mono_key;     // keys of atoms joined; "" for the constant term
};

std::string make_mono_key(const std::vector<Atom>& atoms) {
  std::string k;
  for (const auto& a : atoms) {
    k += a->key;
    k += '*';
  }
  return k;
}

}  // namespace

struct Expr::Impl {
  std::vector<Term> terms;  // sorted by mono_key, coefficients non-zero
  std::string key;
  size_t size = 1;
};

namespace {

std::shared_ptr<const Expr::Impl> finish(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.mono_key < y.mono_key; });
  // Merge equal monomials.
  std::vector<Term> merged;
  for (auto& t : terms) {
    if (!merged.empty() && merged.back().mono_key == t.mono_key) {
      int64_t c;
      if (__builtin_add_overflow(merged.back().coef, t.coef, &c)) return nullptr;
      merged.back().coef = c;
    } else {
      merged.push_back(std::move(t));
    }
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(), [](const Term& t) { return t.coef == 0; }), merged.end());
  auto impl = std::make_shared<Expr::Impl>();
  size_t size = 0;
  for (const auto& t : merged) {
    impl->key += std::to_string(t.coef) + "#" + t.mono_key + "|";
    size += 1;
    for (const auto& a : t.atoms) size += a->size;
  }
  impl->size = std::max<size_t>(size, 1);
  impl->terms = std::move(merged);
  return impl;
}

Expr from_terms(std::vector<Term> terms) {
  auto impl = finish(std::move(terms));
  if (!impl || impl->size > kMaxExprSize) return unknown_int();
  return Expr(impl);
}

Expr from_atom(Atom a) {
  if (a->size > kMaxExprSize) return unknown_int();
  Term t;
  t.coef = 1;
  t.atoms.push_back(std::move(a));
  t.mono_key = make_mono_key(t.atoms);
  return from_terms({t});
}

Atom make_atom(AtomKind kind, std::string name, Expr a, Expr b) {
  auto n = std::make_shared<AtomNode>();
  n->kind = kind;
  n->name = std::move(name);
  switch (kind) {
    case AtomKind::kSymbol: n->key = "$" + n->name; break;
    case AtomKind::kFresh: n->key = "%" + n->name; break;
    case AtomKind::kUnknown: n->key = "?" + n->name; break;
    case AtomKind::kFloorDiv: n->key = "fd(" + a.impl().key + "," + b.impl().key + ")"; break;
    case AtomKind::kMod: n->key = "md(" + a.impl().key + "," + b.impl().key + ")"; break;
    case AtomKind::kMin: n->key = "mn(" + a.impl().key + "," + b.impl().key + ")"; break;
    case AtomKind::kMax: n->key = "mx(" + a.impl().key + "," + b.impl().key + ")"; break;
  }
  if (kind != AtomKind::kSymbol && kind != AtomKind::kFresh && kind != AtomKind::kUnknown)
    n->size = 1 + a.size() + b.size();
  n->a = std::move(a);
  n->b = std::move(b);
  return n;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// True when `sub` (sorted) is a sub-multiset of `of` (sorted); `rest` receives of \ sub.
bool divide_atoms(const std::vector<Atom>& of, const std::vector<Atom>& sub, std::vector<Atom>* rest) {
  size_t j = 0;
  rest->clear();
  for (size_t i = 0; i < of.size(); ++i) {
    if (j < sub.size() && of[i]->key == sub[j]->key) {
      ++j;
    } else {
      rest->push_back(of[i]);
    }
  }
  return j == sub.size();
}

}  // namespace

namespace {
// What finish() makes of the single constant term v, without its sorting and merging.
std::shared_ptr<const Expr::Impl> constant_impl(int64_t v) {
  auto impl = std::make_shared<Expr::Impl>();
  if (v != 0) {
    Term t;
    t.coef = v;
    impl->terms.push_back(std::move(t));
    impl->key = std::to_string(v) + "#|";
  }
  impl->size = 1;
  return impl;
}

// Small constants (dims, axes, indices) are made once and shared: shape inference makes
// millions of them.
constexpr int64_t kSharedLo = -16, kSharedHi = 1024;
const std::shared_ptr<const Expr::Impl>& shared_constant(int64_t v) {
  static const auto* table = [] {
    auto* t = new std::vector<std::shared_ptr<const Expr::Impl>>();  // never destroyed
    for (int64_t k = kSharedLo; k <= kSharedHi; ++k) t->push_back(constant_impl(k));
    return t;
  }();
  return (*table)[static_cast<size_t>(v - kSharedLo)];
}
}  // namespace

Expr::Expr() : p_(shared_constant(0)) {}

Expr Expr::constant(int64_t v) {
  if (v >= kSharedLo && v <= kSharedHi) return Expr(shared_constant(v));
  return Expr(constant_impl(v));
}

Expr Expr::symbol(std::string name) { return from_atom(make_atom(AtomKind::kSymbol, std::move(name), {}, {})); }

namespace {
thread_local FreshReplay* t_replay = nullptr;

Expr make_new_atom(AtomKind kind, const char* prefix) {
  static std::atomic<uint64_t> counter{0};
  auto n = std::make_shared<AtomNode>();
  n->kind = kind;
  n->name = prefix + std::to_string(++counter);
  n->key = (kind == AtomKind::kFresh ? "%" : "?") + n->name;
  Term t;
  t.coef = 1;
  t.atoms.push_back(n);
  t.mono_key = make_mono_key(t.atoms);
  return Expr(finish({t}));
}

Expr new_atom(AtomKind kind, const char* prefix) {
  FreshReplay* r = t_replay;
  if (!r) return make_new_atom(kind, prefix);
  const Expr* again = r->next(kind == AtomKind::kFresh);
  Expr e = again ? *again : make_new_atom(kind, prefix);
  r->made(e);
  return e;
}
}  // namespace

FreshReplay::FreshReplay(const std::vector<Expr>* reuse, std::vector<Expr>* made)
    : reuse_(reuse), made_(made), outer_(t_replay) {
  t_replay = this;
}

FreshReplay::~FreshReplay() { t_replay = outer_; }

const Expr* FreshReplay::next(bool fresh) {
  if (!reuse_ || next_ >= reuse_->size()) return nullptr;
  const Expr& e = (*reuse_)[next_];
  const AtomKind k = e.impl().terms[0].atoms[0]->kind;
  if ((k == AtomKind::kFresh) != fresh) {
    next_ = reuse_->size();  // the order differs from last time: new unknowns from here on
    return nullptr;
  }
  return &(*reuse_)[next_++];
}

Expr Expr::fresh() { return new_atom(AtomKind::kFresh, "unk__"); }

Expr unknown_int() { return new_atom(AtomKind::kUnknown, "unk__"); }

bool Expr::is_constant() const { return p_->terms.empty() || (p_->terms.size() == 1 && p_->terms[0].atoms.empty()); }

std::optional<int64_t> Expr::constant_value() const {
  if (p_->terms.empty()) return 0;
  if (p_->terms.size() == 1 && p_->terms[0].atoms.empty()) return p_->terms[0].coef;
  return std::nullopt;
}

bool Expr::is_symbol() const {
  return p_->terms.size() == 1 && p_->terms[0].coef == 1 && p_->terms[0].atoms.size() == 1 &&
         (p_->terms[0].atoms[0]->kind == AtomKind::kSymbol || p_->terms[0].atoms[0]->kind == AtomKind::kFresh ||
          p_->terms[0].atoms[0]->kind == AtomKind::kUnknown);
}

bool Expr::is_fresh() const {
  return is_symbol() &&
         (p_->terms[0].atoms[0]->kind == AtomKind::kFresh || p_->terms[0].atoms[0]->kind == AtomKind::kUnknown);
}

size_t Expr::size() const { return p_->size; }

namespace {
void collect_symbols(const Expr& e, std::vector<std::string>* out, bool* fresh) {
  for (const auto& t : e.impl().terms)
    for (const auto& a : t.atoms) {
      switch (a->kind) {
        case AtomKind::kSymbol: out->push_back(a->name); break;
        case AtomKind::kFresh:
        case AtomKind::kUnknown: *fresh = true; break;
        default: collect_symbols(a->a, out, fresh); collect_symbols(a->b, out, fresh);
      }
    }
}
}  // namespace

std::vector<std::string> Expr::symbols(bool* has_fresh) const {
  std::vector<std::string> out;
  bool fresh = false;
  collect_symbols(*this, &out, &fresh);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (has_fresh) *has_fresh = fresh;
  return out;
}

bool Expr::operator==(const Expr& o) const { return p_ == o.p_ || p_->key == o.p_->key; }

namespace {
// A sum needs parentheses on either side of '/'; a product or a negation also as the divisor
// (a / 4*b would read as (a / 4)*b).
std::string operand(const Expr& e, bool divisor) {
  std::string s = e.str();
  bool single = s.find_first_of(" *-") == std::string::npos;
  bool product = s.find(' ') == std::string::npos;
  return single || (product && !divisor) ? s : "(" + s + ")";
}

std::string atom_str(const AtomNode& a) {
  switch (a.kind) {
    case AtomKind::kSymbol:
    case AtomKind::kFresh:
    case AtomKind::kUnknown: return a.name;
    case AtomKind::kFloorDiv: return "floor(" + operand(a.a, false) + " / " + operand(a.b, true) + ")";
    case AtomKind::kMod: return "mod(" + a.a.str() + ", " + a.b.str() + ")";
    case AtomKind::kMin: return "min(" + a.a.str() + ", " + a.b.str() + ")";
    case AtomKind::kMax: return "max(" + a.a.str() + ", " + a.b.str() + ")";
  }
  return "?";
}
}  // namespace

std::string Expr::str() const {
  if (p_->terms.empty()) return "0";
  // Symbolic terms first (in canonical order), the constant last.
  std::vector<const Term*> order;
  for (const auto& t : p_->terms)
    if (!t.atoms.empty()) order.push_back(&t);
  for (const auto& t : p_->terms)
    if (t.atoms.empty()) order.push_back(&t);
  std::string s;
  for (size_t i = 0; i < order.size(); ++i) {
    const Term& t = *order[i];
    int64_t c = t.coef;
    if (i > 0) s += c < 0 ? " - " : " + ";
    else if (c < 0) s += "-";
    uint64_t mag = c < 0 ? static_cast<uint64_t>(-(c + 1)) + 1 : static_cast<uint64_t>(c);
    std::string body;
    if (mag != 1 || t.atoms.empty()) body = std::to_string(mag);
    for (const auto& a : t.atoms) body += (body.empty() ? "" : "*") + atom_str(*a);
    s += body;
  }
  return s;
}

Expr operator+(const Expr& a, const Expr& b) {
  std::vector<Term> terms = a.impl().terms;
  terms.insert(terms.end(), b.impl().terms.begin(), b.impl().terms.end());
  return from_terms(std::move(terms));
}

Expr operator-(const Expr& a, const Expr& b) {
  std::vector<Term> terms = a.impl().terms;
  for (Term t : b.impl().terms) {
    if (t.coef == INT64_MIN) return unknown_int();
    t.coef = -t.coef;
    terms.push_back(std::move(t));
  }
  return from_terms(std::move(terms));
}

Expr operator*(const Expr& a, const Expr& b) {
  const auto& x = a.impl().terms;
  const auto& y = b.impl().terms;
  if (x.size() * y.size() > kMaxExprSize) return unknown_int();
  std::vector<Term> terms;
  for (const auto& s : x)
    for (const auto& t : y) {
      Term p;
      if (__builtin_mul_overflow(s.coef, t.coef, &p.coef)) return unknown_int();
      p.atoms = s.atoms;
      p.atoms.insert(p.atoms.end(), t.atoms.begin(), t.atoms.end());
      std::sort(p.atoms.begin(), p.atoms.end(), [](const Atom& l, const Atom& r) { return l->key < r->key; });
      p.mono_key = make_mono_key(p.atoms);
      terms.push_back(std::move(p));
    }
  return from_terms(std::move(terms));
}

Expr Expr::floordiv(const Expr& a, const Expr& b) {
  auto bc = b.constant_value();
  auto ac = a.constant_value();
  if (bc && *bc == 0) return unknown_int();
  if (ac && bc) return constant(floor_div(*ac, *bc));
  if (bc && *bc == 1) return a;
  if (a == b) return constant(1);
  if (bc && *bc > 0) {
    // a = D + R where every coefficient of D is a multiple of c: floor(a/c) = D/c + floor(R/c)
    // as long as R is a constant (D/c is an integer).
    std::vector<Term> divided;
    std::optional<int64_t> rest;
    bool ok = true;
    for (const auto& t : a.impl().terms) {
      if (t.coef % *bc == 0) {
        Term d = t;
        d.coef = t.coef / *bc;
        divided.push_back(std::move(d));
      } else if (t.atoms.empty()) {
        rest = t.coef;
      } else {
        ok = false;
      }
    }
    if (ok) {
      Expr q = from_terms(std::move(divided));
      return rest ? q + constant(floor_div(*rest, *bc)) : q;
    }
  }
  // Division by a monomial that divides every term exactly: (b*s)/s = b, (6*b*s)/(3*s) = 2*b.
  if (b.impl().terms.size() == 1 && b.impl().terms[0].coef > 0) {
    const Term& d = b.impl().terms[0];
    std::vector<Term> divided;
    bool ok = true;
    for (const auto& t : a.impl().terms) {
      Term q;
      if (t.coef % d.coef != 0 || !divide_atoms(t.atoms, d.atoms, &q.atoms)) {
        ok = false;
        break;
      }
      q.coef = t.coef / d.coef;
      q.mono_key = make_mono_key(q.atoms);
      divided.push_back(std::move(q));
    }
    if (ok) return from_terms(std::move(divided));
  }
  return from_atom(make_atom(AtomKind::kFloorDiv, "", a, b));
}

Expr Expr::ceildiv(const Expr& a, const Expr& b) { return floordiv(a + b - constant(1), b); }

Expr Expr::mod(const Expr& a, const Expr& b) {
  auto bc = b.constant_value();
  auto ac = a.constant_value();
  if (bc && *bc == 0) return unknown_int();
  if (ac && bc) return constant(*ac - floor_div(*ac, *bc) * *bc);
  if (bc && *bc == 1) return constant(0);
  if (a == b) return constant(0);
  // Exact division leaves nothing: a - b*floor(a/b) simplifies to 0 then.
  Expr q = floordiv(a, b);
  Expr r = a - b * q;
  if (r.is_constant()) return r;
  if (bc && *bc > 0) {
    // Drop terms that are multiples of c.
    std::vector<Term> kept;
    for (const auto& t : a.impl().terms)
      if (t.coef % *bc != 0) kept.push_back(t);
    Expr reduced = from_terms(std::move(kept));
    if (auto rc = reduced.constant_value()) return constant(*rc - floor_div(*rc, *bc) * *bc);
    return from_atom(make_atom(AtomKind::kMod, "", reduced, b));
  }
  return from_atom(make_atom(AtomKind::kMod, "", a, b));
}

Expr Expr::min(const Expr& a, const Expr& b) {
  auto ac = a.constant_value(), bc = b.constant_value();
  if (ac && bc) return constant(std::min(*ac, *bc));
  if (a == b) return a;
  // a - b constant decides it.
  if (auto d = (a - b).constant_value()) return *d <= 0 ? a : b;
  if (auto le = prove_le(a, b)) return *le ? a : b;
  if (prove_le(b, a) == true) return b;
  const Expr& lo = a.impl().key < b.impl().key ? a : b;
  const Expr& hi = a.impl().key < b.impl().key ? b : a;
  return from_atom(make_atom(AtomKind::kMin, "", lo, hi));
}

Expr Expr::max(const Expr& a, const Expr& b) {
  auto ac = a.constant_value(), bc = b.constant_value();
  if (ac && bc) return constant(std::max(*ac, *bc));
  if (a == b) return a;
  if (auto d = (a - b).constant_value()) return *d >= 0 ? a : b;
  if (auto le = prove_le(a, b)) return *le ? b : a;
  if (prove_le(b, a) == true) return a;
  const Expr& lo = a.impl().key < b.impl().key ? a : b;
  const Expr& hi = a.impl().key < b.impl().key ? b : a;
  return from_atom(make_atom(AtomKind::kMax, "", lo, hi));
}

// ---------------------------------------------------------------- bounds

namespace {

// An interval with optional ends, kept in __int128 while combining; ends past +-2^62 are
// dropped (unbounded), which only loses precision, never soundness.
struct Interval {
  std::optional<__int128> lo, hi;
};

constexpr __int128 kBoundCap = static_cast<__int128>(1) << 62;

Interval tidy(Interval r) {
  if (r.lo && (*r.lo > kBoundCap || *r.lo < -kBoundCap)) r.lo.reset();
  if (r.hi && (*r.hi > kBoundCap || *r.hi < -kBoundCap)) r.hi.reset();
  return r;
}

__int128 floor_div128(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// min(x, y) is at least the smaller of two lower bounds, and at most either upper bound.
Interval interval_min(const Interval& x, const Interval& y) {
  Interval r;
  if (x.lo && y.lo) r.lo = std::min(*x.lo, *y.lo);
  if (x.hi || y.hi) r.hi = x.hi && y.hi ? std::min(*x.hi, *y.hi) : (x.hi ? *x.hi : *y.hi);
  return r;
}

Interval interval_negated(const Interval& x) {
  Interval r;
  if (x.hi) r.lo = -*x.hi;
  if (x.lo) r.hi = -*x.lo;
  return r;
}

Interval expr_bounds(const Expr& e);

Interval atom_bounds(const AtomNode& a) {
  switch (a.kind) {
    case AtomKind::kSymbol:
    case AtomKind::kFresh: return {0, std::nullopt};
    case AtomKind::kUnknown: return {};
    case AtomKind::kFloorDiv: {
      Interval x = expr_bounds(a.a), y = expr_bounds(a.b);
      // A divisor that is never negative is taken as positive (dims divide dims; a division by
      // zero is an error of the model at run time).
      if (!y.lo || *y.lo < 0) return {};
      __int128 ylo = std::max<__int128>(*y.lo, 1);
      Interval r;
      if (x.lo) r.lo = *x.lo >= 0 ? (y.hi ? floor_div128(*x.lo, *y.hi) : 0) : floor_div128(*x.lo, ylo);
      if (x.hi) r.hi = *x.hi >= 0 ? floor_div128(*x.hi, ylo) : (y.hi ? floor_div128(*x.hi, *y.hi) : -1);
      return tidy(r);
    }
    case AtomKind::kMod: {
      Interval x = expr_bounds(a.a), y = expr_bounds(a.b);
      if (!y.lo || *y.lo < 0) return {};
      Interval r{0, std::nullopt};
      if (y.hi) r.hi = std::max<__int128>(*y.hi - 1, 0);
      if (x.lo && *x.lo >= 0 && x.hi) r.hi = r.hi ? std::min(*r.hi, *x.hi) : *x.hi;
      return r;
    }
    case AtomKind::kMin: return interval_min(expr_bounds(a.a), expr_bounds(a.b));
    case AtomKind::kMax:  // max(x, y) = -min(-x, -y)
      return interval_negated(interval_min(interval_negated(expr_bounds(a.a)), interval_negated(expr_bounds(a.b))));
  }
  return {};
}

// c * y for a constant c (either end of y may be open).
Interval scale(__int128 c, const Interval& y) {
  Interval r;
  if (c == 0) return {0, 0};
  const auto& from_lo = c > 0 ? y.lo : y.hi;
  const auto& from_hi = c > 0 ? y.hi : y.lo;
  if (from_lo) r.lo = *from_lo * c;
  if (from_hi) r.hi = *from_hi * c;
  return tidy(r);
}

Interval multiply(const Interval& x, const Interval& y) {
  if (x.lo && x.hi && *x.lo == *x.hi) return scale(*x.lo, y);
  if (y.lo && y.hi && *y.lo == *y.hi) return scale(*y.lo, x);
  if (x.lo && y.lo && *x.lo >= 0 && *y.lo >= 0) {
    Interval r{*x.lo * *y.lo, std::nullopt};
    if (x.hi && y.hi) r.hi = *x.hi * *y.hi;
    return tidy(r);
  }
  if (!x.lo || !x.hi || !y.lo || !y.hi) return {};
  __int128 c[4] = {*x.lo * *y.lo, *x.lo * *y.hi, *x.hi * *y.lo, *x.hi * *y.hi};
  return tidy({*std::min_element(c, c + 4), *std::max_element(c, c + 4)});
}

Interval expr_bounds(const Expr& e) {
  Interval sum{0, 0};
  for (const Term& t : e.impl().terms) {
    Interval p{1, 1};
    for (const Atom& a : t.atoms) p = multiply(p, atom_bounds(*a));
    Interval term;
    if (t.coef >= 0) {
      if (p.lo) term.lo = *p.lo * t.coef;
      if (p.hi) term.hi = *p.hi * t.coef;
    } else {
      if (p.hi) term.lo = *p.hi * t.coef;
      if (p.lo) term.hi = *p.lo * t.coef;
    }
    term = tidy(term);
    sum.lo = sum.lo && term.lo ? std::optional<__int128>(*sum.lo + *term.lo) : std::nullopt;
    sum.hi = sum.hi && term.hi ? std::optional<__int128>(*sum.hi + *term.hi) : std::nullopt;
    sum = tidy(sum);
  }
  return sum;
}

}  // namespace

Bounds bounds(const Expr& e) {
  Interval r = expr_bounds(e);
  Bounds b;
  if (r.lo) b.lo = static_cast<int64_t>(*r.lo);
  if (r.hi) b.hi = static_cast<int64_t>(*r.hi);
  return b;
}

std::optional<bool> prove_eq(const Expr& a, const Expr& b) {
  if (a == b) return true;
  Expr d = a - b;
  if (auto c = d.constant_value()) return *c == 0;
  Bounds r = bounds(d);
  if ((r.lo && *r.lo > 0) || (r.hi && *r.hi < 0)) return false;
  return std::nullopt;
}

std::optional<bool> prove_lt(const Expr& a, const Expr& b) {
  Bounds r = bounds(b - a);  // a < b  <=>  b - a >= 1
  if (r.lo && *r.lo >= 1) return true;
  if (r.hi && *r.hi <= 0) return false;
  return std::nullopt;
}

std::optional<bool> prove_le(const Expr& a, const Expr& b) {
  Bounds r = bounds(b - a);  // a <= b  <=>  b - a >= 0
  if (r.lo && *r.lo >= 0) return true;
  if (r.hi && *r.hi <= -1) return false;
  return std::nullopt;
}

// ---------------------------------------------------------------- parsing

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}
  std::optional<Expr> parse_all() {
    auto e = sum();
    skip();
    if (!e || pos_ != s_.size()) return std::nullopt;
    return e;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<Expr> sum() {
    auto e = product();
    if (!e) return std::nullopt;
    for (;;) {
      if (eat('+')) {
        auto r = product();
        if (!r) return std::nullopt;
        e = *e + *r;
      } else if (eat('-')) {
        auto r = product();
        if (!r) return std::nullopt;
        e = *e - *r;
      } else {
        return e;
      }
    }
  }
  std::optional<Expr> product() {
    auto e = unary();
    if (!e) return std::nullopt;
    while (eat('*')) {
      auto r = unary();
      if (!r) return std::nullopt;
      e = *e * *r;
    }
    return e;
  }
  std::optional<Expr> unary() {
    if (eat('-')) {
      auto e = unary();
      if (!e) return std::nullopt;
      return Expr::constant(0) - *e;
    }
    return primary();
  }
  std::optional<Expr> primary() {
    skip();
    if (pos_ >= s_.size()) return std::nullopt;
    char c = s_[pos_];
    if (eat('(')) {
      auto e = sum();
      if (!e || !eat(')')) return std::nullopt;
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v)) return std::nullopt;
        ++pos_;
      }
      return Expr::constant(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.'))
        ++pos_;
      std::string name(s_.substr(start, pos_ - start));
      skip();
      if (pos_ < s_.size() && s_[pos_] == '(' && (name == "floor" || name == "mod" || name == "min" || name == "max")) {
        eat('(');
        auto a = sum();
        if (!a) return std::nullopt;
        if (name == "floor") {
          if (!eat('/')) return std::nullopt;
        } else if (!eat(',')) {
          return std::nullopt;
        }
        auto b = sum();
        if (!b || !eat(')')) return std::nullopt;
        if (name == "floor") return Expr::floordiv(*a, *b);
        if (name == "mod") return Expr::mod(*a, *b);
        if (name == "min") return Expr::min(*a, *b);
        return Expr::max(*a, *b);
      }
      return Expr::symbol(name);
    }
    return std::nullopt;
  }
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Expr Expr::parse(std::string_view text) {
  Parser p(text);
  if (auto e = p.parse_all()) return *e;
  return symbol(std::string(text));
}

}  // namespace onnxtrim::symbolic
