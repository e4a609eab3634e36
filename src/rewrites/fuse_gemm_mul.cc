// Mul(Gemm(A, B, C, alpha, beta), k)  with k a constant scalar:
//   -> Gemm(A, B, C, alpha * k, beta * k)
// Mul(Gemm(A, B, C, alpha, beta), k)  with k a constant per output column ([N] or [1, N]):
//   -> Gemm(A, B', C', alpha, beta),  B'[:, n] = B[:, n] * k[n] (B'[n, :] when transB),
//      C' = C * k (broadcast to [rows of C, N])
// Computed in double, stored in the weights' type: exact up to rounding. A scalar goes into the
// float attributes, so for double Gemms only when alpha * k and beta * k are floats exactly.
// Refuses: constants along the rows or that broadcast the output larger, a non-constant B (for
// column vectors) or C, a Gemm output with other consumers or that is a graph output, types
// other than float/double, opset < 7.
#include <cmath>

#include "passes/rule.h"
#include "rewrites/gemm_epilogue.h"

namespace onnxtrim::passes {
namespace {

bool float_exact(double v) { return static_cast<double>(static_cast<float>(v)) == v; }

struct GemmScale {
  ir::Node* gemm = nullptr;
  Matrix k;                 // [1, 1]: a scalar, into alpha and beta; [1, N]: per column, into B and C
  std::optional<Matrix> c;  // the Gemm's C, for the per-column case
};

class FuseGemmMul final : public Rule<GemmScale> {
 public:
  std::vector<std::string> roots() const override { return {"Mul"}; }

 protected:
  Match<GemmScale> match(const ir::Node& mul, RuleContext& ctx) override {
    for (size_t side = 0; side < 2; ++side) {
      auto f = gemm_operand(mul, side, ctx.opset());
      if (!f || f->m.rows != 1) continue;
      GemmScale fit{f->gemm, f->m, std::nullopt};
      if (f->m.cols == 1 ? scalar_fits(*f->gemm, f->m.v[0], f->y->type.elem) : columns_fit(*f->gemm, f->m, &fit.c))
        return fit;
    }
    return refuse("no input is a Gemm (read only by the Mul) times a constant scalar or per-column vector it can take");
  }

  void apply(ir::Node& mul, GemmScale& f, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Node& gemm = *f.gemm;
    ir::Value* y = gemm.output(0);
    if (f.k.cols == 1) {
      const double k = f.k.v[0];
      rw.set_attribute(&gemm,
                       ir::Attribute::make_float("alpha", static_cast<float>(gemm.attr_float("alpha", 1.0f) * k)));
      if (gemm.input(2))
        rw.set_attribute(&gemm,
                         ir::Attribute::make_float("beta", static_cast<float>(gemm.attr_float("beta", 1.0f) * k)));
    } else {
      columns(gemm, f.k, f.c, ctx.graph(), rw);
    }
    y->type = mul.output(0)->type;
    if (rw.replace_all_uses_with(mul.output(0), y)) rw.erase_node(&mul);
  }

 private:
  static bool scalar_fits(const ir::Node& gemm, double k, ir::DataType dt) {
    double alpha = gemm.attr_float("alpha", 1.0f) * k;
    double beta = gemm.attr_float("beta", 1.0f) * k;
    if (!std::isfinite(alpha) || !std::isfinite(beta)) return false;
    return dt != ir::DataType::kDouble || (float_exact(alpha) && float_exact(beta));
  }

  static bool columns_fit(const ir::Node& gemm, const Matrix& k, std::optional<Matrix>* c) {
    const ir::Tensor* w = ops::FoldContext::constant(gemm.input(1));
    if (!w || w->rank() != 2 || w->dtype() != gemm.output(0)->type.elem) return false;
    bool trans_b = gemm.attr_int("transB", 0) != 0;
    if ((trans_b ? w->dims()[0] : w->dims()[1]) != k.cols) return false;
    if (gemm.input(2)) {
      *c = broadcast_matrix(gemm.input(2), gemm.output(0));
      if (!*c) return false;
    }
    return true;
  }

  static void columns(ir::Node& gemm, const Matrix& k, const std::optional<Matrix>& c, ir::Graph& g, ir::Rewriter& rw) {
    const ir::Tensor* w = ops::FoldContext::constant(gemm.input(1));
    bool trans_b = gemm.attr_int("transB", 0) != 0;
    int64_t n = trans_b ? w->dims()[0] : w->dims()[1];
    std::vector<double> wv = to_doubles(*w);
    for (int64_t i = 0; i < w->dims()[0]; ++i)
      for (int64_t j = 0; j < w->dims()[1]; ++j)
        wv[static_cast<size_t>(i * w->dims()[1] + j)] *= k.at(0, trans_b ? i : j);
    rw.set_input(&gemm, 1,
                 rw.add_initializer(g, from_doubles(w->dtype(), w->dims(), wv), gemm.input(1)->name() + "_scaled"));
    if (c) {
      std::vector<double> cv(static_cast<size_t>(c->rows * n));
      for (int64_t i = 0; i < c->rows; ++i)
        for (int64_t j = 0; j < n; ++j) cv[static_cast<size_t>(i * n + j)] = c->at(i, j) * k.at(0, j);
      rw.set_input(&gemm, 2,
                   rw.add_initializer(g, from_doubles(w->dtype(), matrix_dims(c->rows, n), cv),
                                      gemm.input(2)->name() + "_scaled"));
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseGemmMul, "fuse_gemm_mul",
    "a constant scalar Mul after Gemm goes into alpha and beta, a per-output-column one into the constant B "
    "and C; refuses row-wise constants, non-constant B/C, shared intermediates, graph outputs, non-float types");

}  // namespace onnxtrim::passes
