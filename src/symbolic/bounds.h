// Facts about symbolic expressions that always hold, and what they decide.
//
// A named symbol and a fresh() symbol stand for dims, so they are never negative.
// unknown_int() stands for an integer of any sign: what arithmetic gives up on (overflow, the
// size cap, a division by zero) becomes one, never a fresh dim. bounds() derives an interval
// from these facts through the canonical form (floor division and mod by a positive divisor,
// min, max), and the prove_* functions decide comparisons with it: a dim is never -1,
// n - 1 >= -1, mod(n, 4) <= 3. Expr::min and Expr::max use them too (max(0, n) is n).
#pragma once

#include <cstdint>
#include <optional>

#include "symbolic/expr.h"

namespace onnxtrim::symbolic {

// An interval that always holds the value (nullopt: unbounded on that side).
struct Bounds {
  std::optional<int64_t> lo, hi;
};
Bounds bounds(const Expr& e);

// A new symbol that equals no other expression, of unknown sign (an unknown integer).
Expr unknown_int();

// Relations proved from the expressions' canonical forms and bounds: true or false when
// proved, nullopt when undecided.
std::optional<bool> prove_eq(const Expr& a, const Expr& b);
std::optional<bool> prove_lt(const Expr& a, const Expr& b);
std::optional<bool> prove_le(const Expr& a, const Expr& b);

}  // namespace onnxtrim::symbolic
