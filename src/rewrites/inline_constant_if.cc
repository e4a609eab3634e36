// If(c = constant, then, else) -> the taken branch, copied into the enclosing graph with fresh
// names (outer-scope references keep pointing where they did).
// Refuses: a condition that is not a constant; an If output that is a graph output whose
// branch value is not produced by a branch node (its name could not be kept without a node),
// or that the branch gives the same value as another If output that is a graph output.
#include <unordered_map>

#include "ir/clone.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"

namespace onnxtrim::passes {
namespace {

struct TakenBranch {
  const ir::Graph* branch = nullptr;
};

class InlineConstantIf final : public Rule<TakenBranch> {
 public:
  std::vector<std::string> roots() const override { return {"If"}; }

 protected:
  // The branch that runs, when the condition is a constant.
  Match<TakenBranch> match(const ir::Node& n, RuleContext&) override {
    const ir::Tensor* c = ops::FoldContext::constant(n.input(0));
    if (!c || c->numel() != 1 || c->bytes() == nullptr) return refuse("the condition is not a constant");
    bool cond = ops::element_as_double(*c, 0) != 0;
    const ir::Attribute* a = n.attr(cond ? "then_branch" : "else_branch");
    if (!a || a->type != ir::AttrType::kGraph || !a->g) return refuse("the taken branch is missing");
    const ir::Graph& b = *a->g;
    if (b.outputs().size() != n.num_outputs()) return refuse("the branch has another number of outputs than the If");
    for (size_t i = 0; i < n.num_outputs(); ++i) {
      const ir::Value* o = n.output(i);
      const ir::Value* bo = b.outputs()[i];
      if (!o || !o->is_graph_output()) continue;
      if (bo->producer() == nullptr || bo->graph() != &b)
        return refuse("a graph output of the If is a branch value no branch node makes (its name could not be kept)");
      // Two graph outputs of the If that the branch gives one value: one value cannot keep
      // both names.
      for (size_t j = 0; j < i; ++j)
        if (b.outputs()[j] == bo && n.output(j) && n.output(j)->is_graph_output())
          return refuse("two graph outputs of the If are one branch value");
    }
    return TakenBranch{&b};
  }

  void apply(ir::Node& n, TakenBranch& t, RuleContext& ctx, ir::Rewriter& rw) override {
    inline_branch(n, *t.branch, ctx.graph(), rw);
  }

 private:
  static void inline_branch(ir::Node& n, const ir::Graph& branch, ir::Graph& g, ir::Rewriter& rw) {
    std::unordered_map<const ir::Value*, ir::Value*> map;
    std::vector<ir::Value*> outs = ir::inline_graph(branch, g, &n, rw, map);
    bool all = true;
    for (size_t i = 0; i < n.num_outputs(); ++i)
      if (ir::Value* o = n.output(i)) all = rw.replace_all_uses_with(o, outs[i]) && all;
    // match() makes sure every output's name can be kept; were one not, the If would stay
    // (the inlined copy of what it no longer gives is dead code).
    if (all) rw.erase_node(&n);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(InlineConstantIf, "inline_constant_if",
                       "an If whose condition is constant becomes the taken branch, inlined with fresh names; refuses "
                       "non-constant conditions");

}  // namespace onnxtrim::passes
