// The symbolic dimension simplifier: identities decided by comparison, the size cap, parsing.
#include <gtest/gtest.h>

#include "symbolic/bounds.h"
#include "symbolic/expr.h"

namespace onnxtrim::symbolic {
namespace {

Expr S(const char* n) { return Expr::symbol(n); }
Expr C(int64_t v) { return Expr::constant(v); }

TEST(SymbolicExpr, ArithmeticIdentities) {
  Expr seq = S("seq"), batch = S("batch");
  EXPECT_EQ(Expr::floordiv(seq * 2, C(2)), seq);
  EXPECT_EQ(Expr::floordiv(batch * seq, seq), batch);
  EXPECT_EQ(C(3) + seq - C(3), seq);
  EXPECT_EQ(seq * batch, batch * seq);
  EXPECT_EQ((seq + C(1)) * C(2), seq * 2 + C(2));
  EXPECT_EQ(Expr::floordiv(seq * 6 * batch, seq * 3), batch * 2);
  EXPECT_EQ(Expr::floordiv(seq * 4 + C(3), C(2)), seq * 2 + C(1));
  EXPECT_EQ(Expr::mod(seq * 4, C(2)), C(0));
  EXPECT_EQ(Expr::mod(seq * 4 + C(3), C(2)), C(1));
  EXPECT_EQ(Expr::min(seq, seq + C(1)), seq);
  EXPECT_EQ(Expr::max(seq, seq + C(1)), seq + C(1));
  EXPECT_EQ((seq - seq).constant_value(), 0);
  EXPECT_EQ(Expr::floordiv(C(7), C(2)).constant_value(), 3);
  EXPECT_EQ(Expr::floordiv(C(-7), C(2)).constant_value(), -4);
  EXPECT_EQ(Expr::mod(C(-7), C(3)).constant_value(), 2);
}

TEST(SymbolicExpr, DistinctThingsStayDistinct) {
  Expr seq = S("seq");
  EXPECT_NE(seq, S("batch"));
  EXPECT_NE(Expr::floordiv(seq, C(2)) * 2, seq);  // floor(seq/2)*2 is not seq for odd seq
  EXPECT_NE(Expr::fresh(), Expr::fresh());
  Expr f = Expr::fresh();
  EXPECT_EQ(f, f);
  EXPECT_TRUE(f.is_fresh());
  EXPECT_FALSE(seq.is_fresh());
}

TEST(SymbolicExpr, PrintsAndParsesBack) {
  Expr seq = S("seq"), batch = S("batch");
  Expr e = batch * seq * 2 + C(1);
  EXPECT_EQ(e.str(), "2*batch*seq + 1");
  EXPECT_EQ(Expr::parse(e.str()), e);
  Expr f = Expr::floordiv(seq + C(1), C(2));
  EXPECT_EQ(f.str(), "floor((seq + 1) / 2)");
  EXPECT_EQ(Expr::parse("floor((seq + 1) / 2)"), f);
  // A product as the divisor is bracketed: "a*b / 4*a" would read as (a*b / 4)*a elsewhere.
  Expr g = Expr::floordiv(batch * seq, batch * 4);
  EXPECT_EQ(g.str(), "floor(batch*seq / (4*batch))");
  EXPECT_EQ(Expr::parse(g.str()), g);
  EXPECT_EQ(Expr::floordiv(batch * seq, seq).str(), "batch");
  EXPECT_EQ(Expr::floordiv(batch * 3, seq).str(), "floor(3*batch / seq)");
  Expr g2 = Expr::floordiv(batch * seq * 3, S("h") * 4);
  EXPECT_EQ(g2.str(), "floor(3*batch*seq / (4*h))");
  EXPECT_EQ(Expr::parse(g2.str()), g2);
  // Unknowns are not interface names.
  bool fresh = false;
  EXPECT_TRUE((batch + unknown_int()).symbols(&fresh) == std::vector<std::string>{"batch"});
  EXPECT_TRUE(fresh);
  EXPECT_EQ(Expr::parse("seq*2 - 3").str(), "2*seq - 3");
  EXPECT_EQ(Expr::parse("min(a, b)"), Expr::min(S("b"), S("a")));
  // Not an expression: one symbol with that name.
  EXPECT_EQ(Expr::parse("sequence length"), S("sequence length"));
  EXPECT_TRUE(Expr::parse("batch_size").is_symbol());
  EXPECT_EQ(Expr::parse("42").constant_value(), 42);
}

TEST(SymbolicExpr, SizeCapFallsBackToAFreshSymbol) {
  Expr e = S("a");
  for (int i = 0; i < 200; ++i) {
    e = e * (S("x") + C(i));
    EXPECT_LE(e.size(), kMaxExprSize);
  }
  Expr p = S("a") + S("b") + S("c") + S("d");
  Expr q = p * p * p;  // 20 monomials of degree 3: past the cap
  EXPECT_TRUE(q.is_fresh());
  EXPECT_NE(q, p * p * p);  // each fallback is a new unknown
}

TEST(SymbolicExpr, BoundsFromDimsBeingNonNegative) {
  // A dim is never negative; arithmetic on dims keeps what follows from that.
  EXPECT_EQ(bounds(S("n")).lo, 0);
  EXPECT_FALSE(bounds(S("n")).hi);
  EXPECT_EQ(bounds(S("n") * 2 + C(3)).lo, 3);
  EXPECT_EQ(bounds(C(0) - S("n")).hi, 0);
  EXPECT_FALSE(bounds(S("n") - S("m")).lo);
  EXPECT_EQ(bounds(Expr::floordiv(S("n") - C(1), C(2))).lo, -1);
  Expr m = Expr::mod(S("n"), C(8));
  EXPECT_EQ(bounds(m).lo, 0);
  EXPECT_EQ(bounds(m).hi, 7);
  EXPECT_EQ(bounds(Expr::fresh()).lo, 0);
  // An unknown integer has no bound at all.
  EXPECT_FALSE(bounds(unknown_int()).lo);
  EXPECT_FALSE(bounds(unknown_int()).hi);
}

TEST(SymbolicExpr, ComparisonsDecidedFromBounds) {
  EXPECT_EQ(prove_eq(S("n"), C(-1)), false);  // a dim is never -1
  EXPECT_EQ(prove_eq(S("n") + C(1), C(0)), false);
  EXPECT_EQ(prove_eq(S("n") * 2, S("n") + S("n")), true);
  EXPECT_FALSE(prove_eq(S("n"), C(1)).has_value());
  EXPECT_FALSE(prove_eq(S("n"), S("m")).has_value());
  EXPECT_EQ(prove_lt(C(-1), S("n")), true);
  EXPECT_EQ(prove_lt(S("n"), C(0)), false);
  EXPECT_EQ(prove_le(C(0), S("n")), true);
  EXPECT_EQ(prove_le(S("n") + C(1), S("n")), false);
  EXPECT_FALSE(prove_lt(S("n"), C(4)).has_value());
  // Unknown integers decide nothing (except against themselves).
  Expr u = unknown_int();
  EXPECT_FALSE(prove_eq(u, C(-1)).has_value());
  EXPECT_EQ(prove_eq(u, u), true);
  // min/max simplify when bounds order their operands.
  EXPECT_EQ(Expr::max(C(0), S("n")), S("n"));
  EXPECT_EQ(Expr::min(C(0), S("n")), C(0));
  EXPECT_EQ(Expr::max(C(0), S("n") - C(1)).str(), "max(0, n - 1)");
}

TEST(SymbolicExpr, OverflowFallsBackToAFreshSymbol) {
  Expr big = C(INT64_MAX) * S("n");
  Expr sum = big + big;
  EXPECT_TRUE(sum.is_fresh());
  // What arithmetic gives up on may be negative: no bound is claimed for it.
  EXPECT_FALSE(bounds(sum).lo);
}

// A replay hands out the unknowns of last time in order, of the kind asked for; past them, or
// once the kinds differ from last time, new ones. Scopes nest; outside one, every unknown is new.
TEST(SymbolicExpr, ReplayedUnknownsComeBackInOrder) {
  std::vector<Expr> first;
  {
    FreshReplay r(nullptr, &first);
    (void)Expr::fresh();
    (void)unknown_int();
  }
  ASSERT_EQ(first.size(), 2u);
  std::vector<Expr> second, inner;
  {
    FreshReplay r(&first, &second);
    EXPECT_EQ(Expr::fresh(), first[0]);
    {
      FreshReplay nested(nullptr, &inner);  // stands alone
      EXPECT_NE(Expr::fresh(), first[1]);
    }
    EXPECT_EQ(unknown_int(), first[1]);
    Expr extra = Expr::fresh();  // one more than last time: new
    EXPECT_NE(extra, first[0]);
    EXPECT_NE(extra, first[1]);
  }
  EXPECT_EQ(second.size(), 3u);
  EXPECT_EQ(inner.size(), 1u);
  std::vector<Expr> third;
  {
    FreshReplay r(&first, &third);
    Expr a = unknown_int();  // last time's first was fresh(): the order differs, new from here
    EXPECT_NE(a, first[0]);
    EXPECT_NE(a, first[1]);
    EXPECT_NE(Expr::fresh(), first[0]);
  }
  EXPECT_NE(Expr::fresh(), Expr::fresh());
}

}  // namespace
}  // namespace onnxtrim::symbolic
