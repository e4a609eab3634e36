// If(c = constant, then, else) -> the taken branch, copied into the enclosing graph with fresh
// names (outer-scope references keep pointing where they did).
// Refuses: a condition that is not a constant; an If output that is a graph output whose
// branch value is not produced by a branch node (its name could not be kept without a node).
#include <unordered_map>

#include "ir/clone.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class InlineConstantIf final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead()) continue;
      const ir::Graph* branch = matches(*n);
      if (branch) apply(*n, *branch, g, rw);
    }
  }

 private:
  // The branch that runs, when the condition is a constant.
  static const ir::Graph* matches(const ir::Node& n) {
    if (n.op_type != "If" || !n.is_default_domain()) return nullptr;
    const ir::Tensor* c = ops::FoldContext::constant(n.input(0));
    if (!c || c->numel() != 1 || c->bytes() == nullptr) return nullptr;
    bool cond = ops::element_as_double(*c, 0) != 0;
    const ir::Attribute* a = n.attr(cond ? "then_branch" : "else_branch");
    if (!a || a->type != ir::AttrType::kGraph || !a->g) return nullptr;
    const ir::Graph& b = *a->g;
    if (b.outputs().size() != n.num_outputs()) return nullptr;
    for (size_t i = 0; i < n.num_outputs(); ++i) {
      const ir::Value* o = n.output(i);
      const ir::Value* bo = b.outputs()[i];
      if (o && o->is_graph_output() && (bo->producer() == nullptr || bo->graph() != &b)) return nullptr;
    }
    return &b;
  }

  static void apply(ir::Node& n, const ir::Graph& branch, ir::Graph& g, ir::Rewriter& rw) {
    std::unordered_map<const ir::Value*, ir::Value*> map;
    std::vector<ir::Value*> outs = ir::inline_graph(branch, g, &n, rw, map);
    for (size_t i = 0; i < n.num_outputs(); ++i) {
      ir::Value* o = n.output(i);
      if (!o) continue;
      bool ok = rw.replace_all_uses_with(o, outs[i]);
      (void)ok;  // checked by matches(): the name can always be kept
    }
    rw.erase_node(&n);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(InlineConstantIf, "inline_constant_if", 30,
                       "an If whose condition is constant becomes the taken branch, inlined with fresh names; refuses non-constant conditions");

}  // namespace onnxtrim::passes
