// Add(MatMul(x, W), b) -> Gemm(x, W, b)   when x is 2-D, W a constant 2-D weight and b a
// constant bias that broadcasts over the last axis only ([N] or [1, N]).
// Refuses: x of another rank (MatMul+Add is kept for higher ranks), a MatMul output with other
// consumers or that is a graph output, non-float types, a bias that would broadcast along rows.
#include "ops/fold.h"
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class FuseMatmulAdd final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    if (ctx.model.opset("") < 7) return;  // Gemm broadcasts C unidirectionally from opset 7
    for (ir::Node* add : g.node_list()) {
      if (add->is_dead() || add->op_type != "Add" || !add->is_default_domain()) continue;
      for (size_t side = 0; side < 2; ++side) {
        ir::Value* y = add->input(side);
        ir::Value* bias = add->input(1 - side);
        if (!matches(y, bias)) continue;
        ir::Node* mm = y->producer();
        ir::Node* gemm = rw.insert_node(g, add, "Gemm", {mm->input(0), mm->input(1), bias}, 1, mm->name.empty() ? "gemm" : mm->name + "_gemm");
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
  static bool matches(const ir::Value* y, const ir::Value* bias) {
    if (!y || !bias || !y->producer() || y->uses().size() != 1 || y->is_graph_output()) return false;
    const ir::Node& mm = *y->producer();
    if (mm.op_type != "MatMul" || !mm.is_default_domain()) return false;
    const ir::Value* x = mm.input(0);
    const ir::Tensor* w = ops::FoldContext::constant(mm.input(1));
    const ir::Tensor* b = ops::FoldContext::constant(bias);
    if (!x || x->type.rank() != 2 || !w || w->rank() != 2 || !b) return false;
    if (w->dtype() != ir::DataType::kFloat && w->dtype() != ir::DataType::kDouble) return false;
    if (b->dtype() != w->dtype() || x->type.elem != w->dtype()) return false;
    int64_t n = w->dims()[1];
    bool last_axis = (b->rank() == 1 && b->dims()[0] == n) || (b->rank() == 2 && b->dims()[0] == 1 && b->dims()[1] == n);
    return last_axis;
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(FuseMatmulAdd, "fuse_matmul_add", 520,
                       "MatMul of a 2-D input by a constant 2-D weight + Add of a bias over the last axis -> Gemm; "
                       "MatMul+Add is kept for other ranks, shared intermediates and non-float types");

}  // namespace onnxtrim::passes
