// The symbolic dimension simplifier: identities decided by comparison, the size cap, parsing.
#include <gtest/gtest.h>

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

TEST(SymbolicExpr, OverflowFallsBackToAFreshSymbol) {
  Expr big = C(INT64_MAX) * S("n");
  Expr sum = big + big;
  EXPECT_TRUE(sum.is_fresh());
}

}  // namespace
}  // namespace onnxtrim::symbolic
