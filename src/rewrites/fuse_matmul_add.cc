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
#include "passes/pass.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"
#include "symbolic/bounds.h"

namespace onnxtrim::passes {
namespace {

// What C becomes: the bias itself, or a scalar of the splat's value.
struct Bias {
  std::optional<ir::Tensor> scalar;
};

class FuseMatmulAdd final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    if (ctx.model.opset("") < 7) return;  // Gemm broadcasts C unidirectionally from opset 7
    std::shared_ptr<const ShapeInference> si;
    bool asked = false;
    // Facts only when a bias dim must be proved equal to x's M or a generator's shape read;
    // inferred once, at the first need (of the graph as it is then): a value made by a fusion
    // after that has no facts, and its Add is refused until the next round.
    auto facts = [&]() -> const ShapeInference* {
      if (!asked) {
        asked = true;
        si = current_facts(ctx);
      }
      return si.get();
    };
    for (ir::Node* add : g.node_list()) {
      if (add->is_dead() || add->op_type != "Add" || !add->is_default_domain()) continue;
      for (size_t side = 0; side < 2; ++side) {
        ir::Value* y = add->input(side);
        ir::Value* bias = add->input(1 - side);
        auto fit = matches(y, bias, facts);
        if (!fit) continue;
        ir::Node* mm = y->producer();
        ir::Value* c = bias;
        if (fit->scalar) c = rw.add_initializer(g, std::move(*fit->scalar), bias->name() + "_scalar");
        ir::Node* gemm = rw.insert_node(g, add, "Gemm", {mm->input(0), mm->input(1), c}, 1, mm->name.empty() ? "gemm" : mm->name + "_gemm");
        ir::Value* out = gemm->output(0);
        out->type = add->output(0)->type;
        if (!rw.replace_all_uses_with(add->output(0), out)) {
          rw.erase_node(gemm);
          continue;
        }
        rw.erase_node(add);
        rw.erase_node(mm);
        break;
      }
    }
  }

 private:
  template <typename Facts>
  static std::optional<Bias> matches(const ir::Value* y, const ir::Value* bias, Facts& facts) {
    if (!y || !bias || !y->producer() || y->uses().size() != 1 || y->is_graph_output()) return std::nullopt;
    const ir::Node& mm = *y->producer();
    if (mm.op_type != "MatMul" || !mm.is_default_domain()) return std::nullopt;
    const ir::Value* x = mm.input(0);
    const ir::Tensor* w = ops::FoldContext::constant(mm.input(1));
    if (!x || x->type.rank() != 2 || !w || w->rank() != 2) return std::nullopt;
    if (w->dtype() != ir::DataType::kFloat && w->dtype() != ir::DataType::kDouble) return std::nullopt;
    if (x->type.elem != w->dtype()) return std::nullopt;
    const int64_t n = w->dims()[1];

    // b's shape: a constant's dims, or a splat generator's proved static shape.
    Bias fit;
    std::vector<int64_t> dims;
    if (const ir::Tensor* b = ops::FoldContext::constant(bias)) {
      if (b->dtype() != w->dtype()) return std::nullopt;
      dims = b->dims();
    } else {
      auto sp = splat_of(bias);
      if (!sp || sp->value.dtype() != w->dtype()) return std::nullopt;
      const ShapeInference* si = facts();
      const ops::TypeInfo* fb = si ? si->facts(bias) : nullptr;
      auto st = fb ? fb->static_shape() : std::nullopt;
      if (!st || fb->elem != w->dtype()) return std::nullopt;
      dims = *st;
      fit.scalar = sp->value;
    }
    if (dims.size() > 2) return std::nullopt;
    // The last dim: 1 or N.
    if (!dims.empty() && dims.back() != 1 && dims.back() != n) return std::nullopt;
    // The first of two: 1, or x's M proved equal to it.
    if (dims.size() == 2 && dims[0] != 1 && !m_is(x, dims[0], facts)) return std::nullopt;
    return fit;
  }

  // x's first dim is proved to be m (declared, or by the facts).
  template <typename Facts>
  static bool m_is(const ir::Value* x, int64_t m, Facts& facts) {
    if (x->type.dims[0].value && *x->type.dims[0].value == m) return true;
    const ShapeInference* si = facts();
    const ops::TypeInfo* fx = si ? si->facts(x) : nullptr;
    if (!fx || !fx->shape || fx->shape->size() != 2) return false;
    return symbolic::prove_eq((*fx->shape)[0], symbolic::Expr::constant(m)) == true;
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(FuseMatmulAdd, "fuse_matmul_add",
                       "MatMul of a 2-D input by a constant 2-D weight + Add of a constant bias that broadcasts as "
                       "Gemm's C does (scalar, [N], [1, N], [M, 1], [M, N] with M proved; a splat becomes a scalar) -> "
                       "Gemm; MatMul+Add is kept for other ranks, biases that would grow the product, shared "
                       "intermediates and non-float types");

}  // namespace onnxtrim::passes
