// BatchNormalization(Gemm(A, B, C), scale, bias, mean, var) -> Gemm(A, B', C', beta = 1)
// BatchNormalization(MatMul(x, W), scale, bias, mean, var)   -> Gemm(x, W', C')   (x, W 2-D)
//   The product is 2-D [M, N]: BatchNormalization's axis 1 is the output-feature axis n.
//   s  = scale / sqrt(var + epsilon)                          (per output column n)
//   B' = B * s[n]      (column n of B; row n of B when transB = 1)
//   C' = (beta * C - mean) * s + bias                          (C = 0 when absent)
// Computed in double, stored in the weights' type: exact up to rounding.
// Refuses: a product of another rank (BatchNormalization would not normalise the feature axis),
// weights or statistics or C that are not constants, a product with other consumers or that is
// a graph output, training mode, types other than float/double, opset < 7.
#include <cmath>

#include "ops/fold.h"
#include "passes/rule.h"
#include "rewrites/conv_channel.h"

namespace onnxtrim::passes {
namespace {

bool is_float(ir::DataType t) { return t == ir::DataType::kFloat || t == ir::DataType::kDouble; }

// The product (MatMul or Gemm) the BatchNormalization reads.
struct MatmulBn {
  ir::Node* product;
};

class FuseMatmulBn final : public Rule<MatmulBn> {
 public:
  std::vector<std::string> roots() const override { return {"BatchNormalization"}; }

 protected:
  Match<MatmulBn> match(const ir::Node& bn, RuleContext& ctx) override {
    const int64_t opset = ctx.opset();
    if (opset < 7) return refuse("opset " + std::to_string(opset) + " < 7 (Gemm's C broadcasts from 7)");
    if (bn.attr_int("training_mode", 0) != 0) return refuse("training mode");
    if (bn.attr_int("spatial", 1) != 1) return refuse("spatial = 0");
    if (bn.has_attr("is_test") && bn.attr_int("is_test", 0) == 0) return refuse("is_test = 0 (training)");
    for (size_t i = 1; i < bn.num_outputs(); ++i)
      if (bn.output(i) && (bn.output(i)->has_uses() || bn.output(i)->is_graph_output()))
        return refuse("its running statistics are used");
    ir::Value* y = bn.input(0);
    if (!y || !y->producer()) return refuse("its input is not made by a node");
    ir::Node& p = *y->producer();
    if (!is_op(&p, "MatMul") && !is_op(&p, "Gemm")) return refuse("its input is not made by a MatMul or Gemm");
    if (!read_only_by(y, &bn)) return refuse("the " + p.op_type + " has other readers or is a graph output");
    if (p.num_outputs() != 1) return refuse("the Gemm has more than one output");
    Match<int64_t> n = product_columns(p);
    if (!n) return refuse(n.why());
    if (*n == 0) return refuse("the product has no columns");
    ir::DataType dt = ops::FoldContext::constant(p.input(1))->dtype();
    for (size_t i = 1; i <= 4; ++i) {
      const ir::Tensor* t = ops::FoldContext::constant(bn.input(i));
      if (!t) return refuse("a scale, bias, mean or variance is not a constant");
      if (t->dtype() != dt || t->numel() != *n)
        return refuse("a scale, bias, mean or variance is not one " + std::string(ir::dtype_name(dt)) +
                      " per output column");
    }
    if (!ir::Rewriter::can_replace(bn.output(0), y))
      return refuse("the BatchNormalization's output name cannot be kept");
    return MatmulBn{&p};
  }

  void apply(ir::Node& bn, MatmulBn&, RuleContext& ctx, ir::Rewriter& rw) override { fuse(bn, ctx.graph(), rw); }

 private:
  // Columns N of the 2-D product, or why the product does not fit.
  static Match<int64_t> product_columns(const ir::Node& p) {
    const ir::Tensor* w = ops::FoldContext::constant(p.input(1));
    if (!w || w->rank() != 2) return refuse("the " + p.op_type + "'s weight is not a constant 2-D tensor");
    if (!is_float(w->dtype())) return refuse("the weight is not float or double");
    if (p.op_type == "MatMul") {
      const ir::Value* x = p.input(0);
      if (!x || x->type.rank() != 2)
        return refuse("the MatMul's input is not 2-D (the BatchNormalization would not normalise its features)");
      if (x->type.elem != w->dtype()) return refuse("the input's element type is not the weight's");
      return w->dims()[1];
    }
    // Gemm
    if (p.input(2) && !ops::FoldContext::constant(p.input(2))) return refuse("the Gemm's C is not a constant");
    int64_t n = p.attr_int("transB", 0) != 0 ? w->dims()[0] : w->dims()[1];
    if (const ir::Tensor* c = ops::FoldContext::constant(p.input(2))) {
      if (c->dtype() != w->dtype() || c->rank() > 2) return refuse("the Gemm's C is of another type or of rank > 2");
      if (c->rank() >= 1 && c->dims().back() != 1 && c->dims().back() != n)
        return refuse("the Gemm's C does not broadcast along the output columns");
    }
    return n;
  }

  static void fuse(ir::Node& bn, ir::Graph& g, ir::Rewriter& rw) {
    ir::Node& p = *bn.input(0)->producer();
    bool gemm = p.op_type == "Gemm";
    const ir::Tensor& w = *ops::FoldContext::constant(p.input(1));
    bool trans_b = gemm && p.attr_int("transB", 0) != 0;
    int64_t n = trans_b ? w.dims()[0] : w.dims()[1];
    auto un = static_cast<size_t>(n);
    std::vector<double> scale = to_doubles(*ops::FoldContext::constant(bn.input(1)));
    std::vector<double> bias = to_doubles(*ops::FoldContext::constant(bn.input(2)));
    std::vector<double> mean = to_doubles(*ops::FoldContext::constant(bn.input(3)));
    std::vector<double> var = to_doubles(*ops::FoldContext::constant(bn.input(4)));
    double eps = bn.attr_float("epsilon", 1e-5f);
    std::vector<double> s(un);
    for (size_t j = 0; j < un; ++j) s[j] = scale[j] / std::sqrt(var[j] + eps);

    std::vector<double> wv = to_doubles(w);
    for (int64_t i = 0; i < w.dims()[0]; ++i)
      for (int64_t j = 0; j < w.dims()[1]; ++j)
        wv[static_cast<size_t>(i * w.dims()[1] + j)] *= s[static_cast<size_t>(trans_b ? i : j)];

    // C as [rows, cols] (right-aligned); C' is [N] or [rows, N].
    const ir::Tensor* c = gemm ? ops::FoldContext::constant(p.input(2)) : nullptr;
    double beta = gemm ? p.attr_float("beta", 1.0f) : 1.0;
    int64_t rows = c && c->rank() == 2 ? c->dims()[0] : 1;
    int64_t cols = c && c->rank() >= 1 ? c->dims().back() : 1;
    std::vector<double> cv = c ? to_doubles(*c) : std::vector<double>{};
    std::vector<double> nc(static_cast<size_t>(rows * n));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double cij = c ? beta * cv[static_cast<size_t>(i * cols + (cols == 1 ? 0 : j))] : 0.0;
        auto uj = static_cast<size_t>(j);
        nc[static_cast<size_t>(i * n + j)] = (cij - mean[uj]) * s[uj] + bias[uj];
      }
    std::vector<int64_t> cdims = rows == 1 ? std::vector<int64_t>{n} : std::vector<int64_t>{rows, n};

    ir::Value* new_w = rw.add_initializer(g, from_doubles(w.dtype(), w.dims(), wv), p.input(1)->name() + "_bn");
    ir::Value* new_c = rw.add_initializer(g, from_doubles(w.dtype(), cdims, nc), p.output(0)->name() + "_bn_bias");
    ir::Value* out = bn.output(0);
    if (gemm) {
      rw.set_input(&p, 1, new_w);
      rw.set_input(&p, 2, new_c);
      if (beta != 1.0) rw.set_attribute(&p, ir::Attribute::make_float("beta", 1.0f));
      ir::Value* y = p.output(0);
      y->type = out->type;
      if (rw.replace_all_uses_with(out, y)) rw.erase_node(&bn);
      return;
    }
    ir::Node* ng =
        rw.insert_node(g, &bn, "Gemm", {p.input(0), new_w, new_c}, 1, p.name.empty() ? "gemm" : p.name + "_gemm");
    ng->output(0)->type = out->type;
    if (!rw.replace_all_uses_with(out, ng->output(0))) {
      rw.erase_node(ng);
      return;
    }
    rw.erase_node(&bn);
    rw.erase_node(&p);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseMatmulBn, "fuse_matmul_bn",
    "2-D MatMul/Gemm with constant weights + inference BatchNormalization over the output features -> "
    "Gemm with scaled weights and C; refuses other ranks, shared intermediates, non-constant weights");

}  // namespace onnxtrim::passes
