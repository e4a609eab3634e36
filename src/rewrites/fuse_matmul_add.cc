// Add(MatMul(x, W), b) -> Gemm(x, W, b)   when x is 2-D ([M, K]), W a constant 2-D weight
// ([K, N]) and b a constant that broadcasts to [M, N] exactly as Gemm's C does: a scalar or any
// one-element tensor of rank <= 2, [N], [1, N], [M, 1] or [M, N] (a dim of b equal to M only when
// x's first dim is proved to be M). A bias that repeats one value (a stored splat, or
// ConstantOfShape / Expand / Tile of a constant) whose shape is proved to broadcast so becomes a
// scalar C, and its generator goes.
// Refuses: x of another rank (MatMul+Add is kept for higher ranks), a MatMul output with other
// consumers or that is a graph output, non-float types, a bias of rank > 2 or one that would
// grow the product (a dim of b not 1 and not proved equal to M or N: with x's M unknown, a bias
// of M rows would broadcast a one-row x to M rows, which Gemm does not do), a bias that is not
// constant and not a splat, opset < 7.
#include <optional>

#include "ops/fold.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"
#include "symbolic/bounds.h"

namespace onnxtrim::passes {
namespace {

// The Add's input made by the MatMul (side), and what C becomes: the bias itself, or a scalar
// of the splat's value.
struct MatmulBias {
  size_t side = 0;
  std::optional<ir::Tensor> scalar;
};

class FuseMatmulAdd final : public Rule<MatmulBias> {
 public:
  std::vector<std::string> roots() const override { return {"Add"}; }

 protected:
  // Facts only when a bias dim must be proved equal to x's M or a generator's shape read
  // (ctx.facts(): inferred once per graph, at the first need, of the graph as it is then; a
  // value made by a fusion after that has no facts, and its Add is refused until the next
  // round).
  Match<MatmulBias> match(const ir::Node& add, RuleContext& ctx) override {
    const int64_t opset = ctx.opset();
    if (opset < 7) return refuse("opset " + std::to_string(opset) + " < 7 (Gemm's C broadcasts from 7)");
    Match<MatmulBias> first = match_side(add, 0, ctx);
    if (first) return first;
    Match<MatmulBias> second = match_side(add, 1, ctx);
    if (second) return second;
    // The reason of the side a MatMul makes (the first one's when neither or both are).
    const bool second_is_product = is_op(add.input(1) ? add.input(1)->producer() : nullptr, "MatMul");
    const bool first_is_product = is_op(add.input(0) ? add.input(0)->producer() : nullptr, "MatMul");
    return refuse(second_is_product && !first_is_product ? second.why() : first.why());
  }

  void apply(ir::Node& add, MatmulBias& fit, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    ir::Value* y = add.input(fit.side);
    ir::Value* bias = add.input(1 - fit.side);
    ir::Node* mm = y->producer();
    ir::Value* c = bias;
    if (fit.scalar) c = rw.add_initializer(g, std::move(*fit.scalar), bias->name() + "_scalar");
    ir::Node* gemm = rw.insert_node(g, &add, "Gemm", {mm->input(0), mm->input(1), c}, 1,
                                    mm->name.empty() ? "gemm" : mm->name + "_gemm");
    ir::Value* out = gemm->output(0);
    out->type = add.output(0)->type;
    // A new node's output in the Add's graph can always take the Add's place (and name).
    if (!rw.replace_all_uses_with(add.output(0), out)) {
      rw.erase_node(gemm);
      return;
    }
    rw.erase_node(&add);
    rw.erase_node(mm);
  }

 private:
  static Match<MatmulBias> match_side(const ir::Node& add, size_t side, RuleContext& ctx) {
    const ir::Value* y = add.input(side);
    const ir::Value* bias = add.input(1 - side);
    if (!y || !bias) return refuse("an input is absent");
    if (!is_op(y->producer(), "MatMul")) return refuse("no input is made by a MatMul");
    if (!read_only_by(y, &add)) return refuse("the MatMul has other readers or is a graph output");
    const ir::Node& mm = *y->producer();
    const ir::Value* x = mm.input(0);
    const ir::Tensor* w = ops::FoldContext::constant(mm.input(1));
    if (!x || x->type.rank() != 2) return refuse("the MatMul's input is not 2-D (MatMul+Add is kept for other ranks)");
    if (!w || w->rank() != 2) return refuse("the MatMul's weight is not a constant 2-D tensor");
    if (w->dtype() != ir::DataType::kFloat && w->dtype() != ir::DataType::kDouble)
      return refuse("the weight is not float or double");
    if (x->type.elem != w->dtype()) return refuse("the input's element type is not the weight's");
    const int64_t n = w->dims()[1];

    // b's shape: a constant's dims, or a splat generator's proved static shape.
    MatmulBias fit;
    fit.side = side;
    std::vector<int64_t> dims;
    if (const ir::Tensor* b = ops::FoldContext::constant(bias)) {
      if (b->dtype() != w->dtype()) return refuse("the bias's element type is not the weight's");
      dims = b->dims();
    } else {
      auto sp = splat_of(bias);
      if (!sp) return refuse("the bias is neither a constant nor a splat");
      if (sp->value.dtype() != w->dtype()) return refuse("the bias's element type is not the weight's");
      const ShapeInference* si = ctx.facts();
      const ops::TypeInfo* fb = si ? si->facts(bias) : nullptr;
      auto st = fb ? fb->static_shape() : std::nullopt;
      if (!st || fb->elem != w->dtype()) return refuse("the splat bias's shape is not known statically");
      dims = *st;
      fit.scalar = sp->value;
    }
    if (dims.size() > 2) return refuse("the bias has rank > 2");
    // The last dim: 1 or N.
    if (!dims.empty() && dims.back() != 1 && dims.back() != n)
      return refuse("the bias's last dim is neither 1 nor the product's N = " + std::to_string(n));
    // The first of two: 1, or x's M proved equal to it.
    if (dims.size() == 2 && dims[0] != 1 && !m_is(x, dims[0], ctx))
      return refuse("the bias's first dim " + std::to_string(dims[0]) +
                    " is not proved to be the product's M (it would grow the product)");
    return fit;
  }

  // x's first dim is proved to be m (declared, or by the facts).
  static bool m_is(const ir::Value* x, int64_t m, RuleContext& ctx) {
    if (x->type.dims[0].value && *x->type.dims[0].value == m) return true;
    const ShapeInference* si = ctx.facts();
    const ops::TypeInfo* fx = si ? si->facts(x) : nullptr;
    if (!fx || !fx->shape || fx->shape->size() != 2) return false;
    return symbolic::prove_eq((*fx->shape)[0], symbolic::Expr::constant(m)) == true;
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseMatmulAdd, "fuse_matmul_add",
                       "MatMul of a 2-D input by a constant 2-D weight + Add of a constant bias that broadcasts as "
                       "Gemm's C does (scalar, [N], [1, N], [M, 1], [M, N] with M proved; a splat becomes a scalar) -> "
                       "Gemm; MatMul+Add is kept for other ranks, biases that would grow the product, shared "
                       "intermediates and non-float types");

}  // namespace onnxtrim::passes
