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
  bool is_symbol() const;        // a single named symbol
  bool is_fresh() const;         // a symbol made by fresh()
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

}  // namespace onnxtrim::symbolic
