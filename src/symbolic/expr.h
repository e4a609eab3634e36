// Symbolic dimension expressions: integers, named symbols (batch, seq), and +, -, *, floor
// division, mod, min and max over them, always kept in one canonical form so that equal
// expressions compare equal: seq*2/2 == seq, (batch*seq)/seq == batch, 3+seq-3 == seq.
//
// Canonical form: a sum of terms, each an integer coefficient times a product of atoms (sorted,
// with multiplicity). An atom is a symbol or an operation that does not distribute (a floor
// division or mod that is not exact, min, max), whose operands are canonical themselves.
// Expressions are immutable and cheap to copy. Past a size cap an expression is replaced by a
// fresh symbol, so nothing grows without bound.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onnxtrim::symbolic {

class Expr {
 public:
  Expr();  // the constant 0
  static Expr constant(int64_t v);
  static Expr symbol(std::string name);
  // A new symbol that equals no other expression (an unknown dimension).
  static Expr fresh();
  // Parses what str() prints (and plain names); a string that is not an expression (e.g. a
  // dim_param "sequence length") becomes one symbol of that name.
  static Expr parse(std::string_view text);

  bool is_constant() const;
  std::optional<int64_t> constant_value() const;
  bool is_symbol() const;  // a single named symbol
  bool is_fresh() const;   // a symbol made by fresh()
  // Number of nodes of the expression (what the cap limits).
  size_t size() const;
  // The names of the symbols the expression mentions (each once, sorted); *has_fresh is set
  // when it also mentions a fresh symbol (an unknown that has no name outside this run).
  std::vector<std::string> symbols(bool* has_fresh = nullptr) const;
  // Canonical text: "2*seq + 1", "batch*seq", "floor(seq/2)", "(seq % 2)", "min(a, b)".
  std::string str() const;

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr operator+(const Expr& a, int64_t b) { return a + constant(b); }
  friend Expr operator-(const Expr& a, int64_t b) { return a - constant(b); }
  friend Expr operator*(const Expr& a, int64_t b) { return a * constant(b); }
  // Floor division and mod (b > 0 assumed for symbolic b; dims are non-negative). Exact
  // divisions simplify: (6*n)/3 = 2*n, (b*s)/s = b; mod of an exact division is 0.
  static Expr floordiv(const Expr& a, const Expr& b);
  static Expr ceildiv(const Expr& a, const Expr& b);
  static Expr mod(const Expr& a, const Expr& b);
  static Expr min(const Expr& a, const Expr& b);
  static Expr max(const Expr& a, const Expr& b);

  bool operator==(const Expr& o) const;
  bool operator!=(const Expr& o) const { return !(*this == o); }

  struct Impl;
  explicit Expr(std::shared_ptr<const Impl> p) : p_(std::move(p)) {}
  const Impl& impl() const { return *p_; }

 private:
  std::shared_ptr<const Impl> p_;
};

// Maximum size of an expression before it is replaced by a fresh symbol.
constexpr size_t kMaxExprSize = 64;

// While one lives on a thread, the new unknowns (fresh() and unknown_int()) made there are
// appended to `made`, and the first ones are those of `reuse`, in order (as long as each is
// of the kind asked for), instead of new ones. Inferring a node again with its unknowns of
// last time gives the same facts when nothing it depends on changed, where new names would
// make every fact built on them differ. Scopes nest: an inner one stands alone.
class FreshReplay {
 public:
  FreshReplay(const std::vector<Expr>* reuse, std::vector<Expr>* made);
  ~FreshReplay();
  FreshReplay(const FreshReplay&) = delete;
  FreshReplay& operator=(const FreshReplay&) = delete;
  // (For the making of unknowns.) The one to hand out for a new one of this kind (`fresh` or
  // not), or nullptr; and the one handed out.
  const Expr* next(bool fresh);
  void made(const Expr& e) { made_->push_back(e); }

 private:
  const std::vector<Expr>* reuse_;
  std::vector<Expr>* made_;
  size_t next_ = 0;
  FreshReplay* outer_;
};

}  // namespace onnxtrim::symbolic
