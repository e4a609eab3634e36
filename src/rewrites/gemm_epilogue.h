// Shared by fuse_gemm_bias and fuse_gemm_mul: a Gemm whose output may absorb an elementwise
// constant (gemm_operand: the match both start from), and reading a constant as a [rows, cols] matrix broadcast against
// its [M, N] output.
#pragma once

#include <optional>
#include <vector>

#include "ops/fold.h"
#include "rewrites/conv_channel.h"

namespace onnxtrim::passes {

// The Gemm producing `y` when y has this one consumer, is not a graph output, its type is float
// or double, and its C is absent or a constant of rank <= 2. Opset >= 7 (C broadcasts).
inline ir::Node* absorbing_gemm(const ir::Value* y, int64_t opset) {
  if (opset < 7 || !y || !y->producer() || y->uses().size() != 1 || y->is_graph_output()) return nullptr;
  ir::Node* gemm = y->producer();
  if (gemm->op_type != "Gemm" || !gemm->is_default_domain() || gemm->num_outputs() != 1) return nullptr;
  if (y->type.elem != ir::DataType::kFloat && y->type.elem != ir::DataType::kDouble) return nullptr;
  if (gemm->input(2)) {
    const ir::Tensor* c = ops::FoldContext::constant(gemm->input(2));
    if (!c || c->rank() > 2 || c->dtype() != y->type.elem) return nullptr;
  }
  return gemm;
}

// A constant as a matrix: dims right-aligned to [rows, cols], values in double.
struct Matrix {
  int64_t rows = 1, cols = 1;
  std::vector<double> v;
  double at(int64_t i, int64_t j) const {
    return v[static_cast<size_t>((rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j))];
  }
};

// The constant c read as a matrix that broadcasts to the Gemm output [M, N] without growing it
// (each dim 1 or the output's, which must then be known). nullopt otherwise.
inline std::optional<Matrix> broadcast_matrix(const ir::Value* c, const ir::Value* out) {
  const ir::Tensor* t = ops::FoldContext::constant(c);
  if (!t || t->rank() > 2 || t->dtype() != out->type.elem || out->type.rank() != 2 || !t->bytes()) return std::nullopt;
  Matrix m;
  m.rows = t->rank() == 2 ? t->dims()[0] : 1;
  m.cols = t->rank() >= 1 ? t->dims().back() : 1;
  const auto& od = out->type.dims;
  if (m.rows != 1 && od[0].value != m.rows) return std::nullopt;
  if (m.cols != 1 && od[1].value != m.cols) return std::nullopt;
  m.v = to_doubles(*t);
  return m;
}

// Input `side` of an elementwise op (Add, Mul) comes from an absorbing Gemm, the other input is a
// constant that broadcasts to the Gemm's output y without growing it, and the op's output can take
// y's place: the Gemm, y and the constant. nullopt otherwise.
struct GemmOperand {
  ir::Node* gemm = nullptr;
  ir::Value* y = nullptr;
  Matrix m;
};
inline std::optional<GemmOperand> gemm_operand(const ir::Node& op, size_t side, int64_t opset) {
  ir::Node* gemm = absorbing_gemm(op.input(side), opset);
  if (!gemm) return std::nullopt;
  ir::Value* y = gemm->output(0);
  auto m = broadcast_matrix(op.input(1 - side), y);
  if (!m || !ir::Rewriter::can_replace(op.output(0), y)) return std::nullopt;
  return GemmOperand{gemm, y, std::move(*m)};
}

// C' shape: [cols] when it has one row, else [rows, cols].
inline std::vector<int64_t> matrix_dims(int64_t rows, int64_t cols) {
  return rows == 1 ? std::vector<int64_t>{cols} : std::vector<int64_t>{rows, cols};
}

}  // namespace onnxtrim::passes
