// Add(Gemm(A, B, C, alpha, beta), c) -> Gemm(A, B, C', alpha, beta = 1),  C' = beta * C + c
// (C = 0 when absent; c a constant that broadcasts to the Gemm output [M, N] without changing
// its shape: scalar, [N], [1, N], [M, 1], [M, N]). Computed in double: exact up to rounding.
// Refuses: a constant that would broadcast the output larger, a non-constant C, a Gemm output
// with other consumers or that is a graph output, types other than float/double, opset < 7.
#include "passes/rule.h"
#include "rewrites/gemm_epilogue.h"

namespace onnxtrim::passes {
namespace {

struct GemmBias {
  ir::Node* gemm = nullptr;
  Matrix c;                   // the Add's constant
  std::optional<Matrix> old;  // the Gemm's C
};

class FuseGemmBias final : public Rule<GemmBias> {
 public:
  std::vector<std::string> roots() const override { return {"Add"}; }

 protected:
  Match<GemmBias> match(const ir::Node& add, RuleContext& ctx) override {
    for (size_t side = 0; side < 2; ++side) {
      auto f = gemm_operand(add, side, ctx.opset());
      if (!f) continue;
      std::optional<Matrix> old;
      if (f->gemm->input(2) && !(old = broadcast_matrix(f->gemm->input(2), f->y))) continue;
      return GemmBias{f->gemm, std::move(f->m), old};
    }
    return refuse(
        "no input is a Gemm (read only by the Add, C constant or absent) plus a constant that keeps its shape");
  }

  void apply(ir::Node& add, GemmBias& b, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Node& gemm = *b.gemm;
    const Matrix& c = b.c;
    const std::optional<Matrix>& old = b.old;
    ir::Value* y = gemm.output(0);
    double beta = gemm.attr_float("beta", 1.0f);
    int64_t rows = std::max(c.rows, old ? old->rows : 1);
    int64_t cols = std::max(c.cols, old ? old->cols : 1);
    std::vector<double> v(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        v[static_cast<size_t>(i * cols + j)] = (old ? beta * old->at(i, j) : 0.0) + c.at(i, j);
    ir::Value* nc =
        rw.add_initializer(ctx.graph(), from_doubles(y->type.elem, matrix_dims(rows, cols), v), y->name() + "_bias");
    rw.set_input(&gemm, 2, nc);
    if (beta != 1.0) rw.set_attribute(&gemm, ir::Attribute::make_float("beta", 1.0f));
    y->type = add.output(0)->type;
    if (rw.replace_all_uses_with(add.output(0), y)) rw.erase_node(&add);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseGemmBias, "fuse_gemm_bias",
    "a constant Add after Gemm (no C or a constant C) joins C; refuses constants that broadcast the output "
    "larger, shared intermediates, graph outputs, non-float types");

}  // namespace onnxtrim::passes
