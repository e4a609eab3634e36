// legalize_coreml (--target coreml): Core ML rejects tensors of rank above 5. Exporters of
// window attention (Swin, DaViT) write Reshape -> Transpose -> Reshape through rank 6:
//
//   Reshape1(x) [rank >= 6] -> Transpose(perm) -> Reshape2 [rank <= 5]
//
// Axes that stay consecutive under perm are merged (perm [0,1,3,4,2,5] has groups
// [0,1] [3,4] [2] [5]). If the merged rank is below 6 the chain becomes
//   Reshape(x, merged shape) -> Transpose(merged perm) -> Reshape2
// otherwise the transpose is done one axis at a time with rank-4 steps:
//   for each axis a = perm[i]: Reshape to [leading, prod(dims before a not yet taken), d_a,
//   prod(dims after a not yet taken)], Transpose [0,2,1,3], leading *= d_a
// followed by Reshape2, which keeps its output name so downstream users are untouched.
// Refuses: intermediates with other consumers or that are graph outputs, unknown shapes, more
// than one symbolic dim in a new shape (only one -1 is allowed).
//
// Before that, element-wise ops are moved out from behind a Reshape to rank >= 6 (RAFT divides
// its rank-6 correlation volume by a scalar between two Reshapes):
//
//   E(Reshape1(x, s), c...) -> Reshape1(E(x, c...), s)      rank(x) <= 5, every c one element
//
// exact because an element-wise op with single-element operands computes each element alone, so
// it commutes with any re-view of the data; rank(c) <= rank(x) keeps E(x, c) x's shape, so
// Reshape1 (even its 0 entries) means what it did. Reshape1 then meets the next op: a Reshape
// (the two merge: legalize_coreml_reshapes, coreml_reshapes.cc) or a Transpose (above).
// Afterwards every remaining value of rank > 5 is reported as a warning naming its node (an
// error with --strict).
#include <numeric>
#include <set>

#include "ops/kernel_util.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/shape_inference.h"
#include "targets/reshape_target.h"

namespace onnxtrim::passes {
namespace {

using symbolic::Expr;

struct Chain {
  ir::Node* r1;
  ir::Node* tr;
  ir::Node* r2;
  ops::SymShape shape;  // Reshape1's output dims
  std::vector<int64_t> perm;
  ops::SymShape out2;  // Reshape2's output dims
};

// Element-wise ops (their files say so): each output element depends only on the same element
// of each input.
bool elementwise(const ir::Node& n) {
  return n.num_outputs() == 1 && ops::OpRegistry::instance().has(n.domain, n.op_type, ops::OpProperty::kElementwise);
}

class LegalizeCoreml final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    if (auto si = current_facts(ctx)) {
      for (ir::Node* n : g.node_list())
        if (!n->is_dead()) hoist_elementwise(*n, g, rw, *si);
    }
    // The hoists changed shapes: facts afresh (when they changed anything) before splitting
    // what is left. Reshape pairs merge in legalize_coreml_reshapes (the next round).
    auto facts = current_facts(ctx);
    if (facts) {
      const ShapeInference& si = *facts;
      for (ir::Node* n : g.node_list()) {
        if (n->is_dead()) continue;
        if (auto c = match(*n, si)) apply(*c, g, rw);
      }
    }
    // Report what is left (on the final graph: re-infer). Each round reports afresh: a value a
    // later round legalized must not keep its warning from an earlier one.
    if (g.parent() == nullptr)
      std::erase_if(*ctx.warnings, [](const std::string& w) { return w.rfind("coreml: value '", 0) == 0; });
    auto after = current_facts(ctx);
    if (!after) return;
    g.for_each_node([&](ir::Node* n) {
      for (ir::Value* o : n->outputs()) {
        const ops::TypeInfo* f = o ? after->facts(o) : nullptr;
        if (f && f->rank() > 5) {
          std::string msg = "coreml: value '" + o->name() + "' of node " + n->describe() + " has rank " +
                            std::to_string(f->rank()) + " (Core ML allows at most 5)";
          if (std::find(ctx.warnings->begin(), ctx.warnings->end(), msg) == ctx.warnings->end())
            ctx.warnings->push_back(msg);
        }
      }
    });
  }

 private:
  // E(Reshape1(x, s), c...) -> Reshape1(E(x, c...), s): see the header comment.
  static void hoist_elementwise(ir::Node& e, ir::Graph& g, ir::Rewriter& rw, const ShapeInference& si) {
    if (!elementwise(e)) return;
    ir::Node* r1 = nullptr;
    size_t slot = 0;
    for (size_t i = 0; i < e.num_inputs(); ++i) {
      ir::Value* v = e.input(i);
      if (!v) continue;
      ir::Node* p = v->producer();
      if (!r1 && p && p->op_type == "Reshape" && p->is_default_domain() && p->graph() == &g && v->uses().size() == 1 &&
          !v->is_graph_output()) {
        const ops::TypeInfo* f = si.facts(v);
        if (f && f->shape && f->rank() >= 6) {
          r1 = p;
          slot = i;
          continue;
        }
      }
    }
    if (!r1) return;
    const ops::TypeInfo* fx = si.facts(r1->input(0));
    const ops::TypeInfo* fe = si.facts(e.output(0));
    const ops::TypeInfo* fr = si.facts(r1->output(0));
    if (!fx || !fx->shape || fx->rank() > 5 || !fe || !fe->shape || fe->rank() != fr->rank()) return;
    for (size_t i = 0; i < e.num_inputs(); ++i) {
      if (i == slot || !e.input(i)) continue;
      const ops::TypeInfo* f = si.facts(e.input(i));
      if (!f || !f->shape || f->rank() > fx->rank()) return;
      for (const Expr& d : *f->shape)
        if (d.constant_value() != std::optional<int64_t>(1)) return;
    }
    std::vector<ir::Value*> inputs(e.inputs().begin(), e.inputs().end());
    inputs[slot] = r1->input(0);
    ir::Node* e2 = rw.insert_node(g, &e, e.op_type, inputs, 1, e.output(0)->name());
    for (const ir::Attribute& a : e.attributes) rw.set_attribute(e2, a);
    std::vector<ir::Value*> rin(r1->inputs().begin(), r1->inputs().end());
    rin[0] = e2->output(0);
    ir::Node* r2 = rw.insert_node(g, &e, "Reshape", rin, 1, e.output(0)->name() + "_reshape");
    for (const ir::Attribute& a : r1->attributes) rw.set_attribute(r2, a);
    if (!rw.replace_all_uses_with(e.output(0), r2->output(0))) {
      rw.erase_node(r2);
      rw.erase_node(e2);
      return;
    }
    rw.erase_node(&e);
    rw.erase_node(r1);
  }

  static std::optional<Chain> match(ir::Node& r2, const ShapeInference& si) {
    if (r2.op_type != "Reshape" || !r2.is_default_domain()) return std::nullopt;
    ir::Value* t_out = r2.input(0);
    if (!t_out || !t_out->producer() || t_out->uses().size() != 1 || t_out->is_graph_output()) return std::nullopt;
    ir::Node* tr = t_out->producer();
    if (tr->op_type != "Transpose" || !tr->is_default_domain()) return std::nullopt;
    ir::Value* r1_out = tr->input(0);
    if (!r1_out || !r1_out->producer() || r1_out->uses().size() != 1 || r1_out->is_graph_output()) return std::nullopt;
    ir::Node* r1 = r1_out->producer();
    if (r1->op_type != "Reshape" || !r1->is_default_domain()) return std::nullopt;
    const ops::TypeInfo* f1 = si.facts(r1_out);
    const ops::TypeInfo* f2 = si.facts(r2.output(0));
    if (!f1 || !f1->shape || f1->rank() < 6 || !f2 || !f2->shape || f2->rank() > 5) return std::nullopt;
    auto rank = static_cast<size_t>(f1->rank());
    std::vector<int64_t> perm = tr->attr_ints("perm");
    if (perm.empty()) {
      perm.resize(rank);
      for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
    }
    if (perm.size() != rank) return std::nullopt;
    // Reshape2's target is rewritten from its known output dims (a 0 in it would copy a dim
    // of the new, differently shaped intermediate).
    if (!reshape_constant_target(*f2->shape)) return std::nullopt;
    return Chain{r1, tr, &r2, *f1->shape, perm, *f2->shape};
  }

  static void set_final_shape(const Chain& c, ir::Graph& g, ir::Rewriter& rw) {
    auto shape = reshape_constant_target(c.out2);
    ir::Value* s = rw.add_initializer(g, ops::make_tensor<int64_t>({static_cast<int64_t>(shape->size())}, *shape),
                                      c.r2->output(0)->name() + "_shape");
    rw.set_input(c.r2, 1, s);
  }

  static void apply(const Chain& c, ir::Graph& g, ir::Rewriter& rw) {
    const auto& d = c.shape;
    const auto& perm = c.perm;
    size_t rank = perm.size();
    // Groups: maximal runs of perm that are consecutive axes.
    std::vector<std::vector<int64_t>> groups;  // in perm order
    for (size_t i = 0; i < rank; ++i) {
      if (!groups.empty() && groups.back().back() + 1 == perm[i]) groups.back().push_back(perm[i]);
      else groups.push_back({perm[i]});
    }
    // Groups in input-axis order give the merged input shape.
    std::vector<size_t> by_start(groups.size());
    std::iota(by_start.begin(), by_start.end(), 0);
    std::sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) { return groups[a][0] < groups[b][0]; });
    ops::SymShape merged;
    std::vector<int64_t> position(groups.size());  // group -> index in the merged input
    for (size_t k = 0; k < by_start.size(); ++k) {
      Expr p = Expr::constant(1);
      for (int64_t a : groups[by_start[k]]) p = p * d[static_cast<size_t>(a)];
      merged.push_back(p);
      position[by_start[k]] = static_cast<int64_t>(k);
    }
    ir::Value* x = c.r1->input(0);
    if (merged.size() < 6) {
      auto shape = reshape_constant_target(merged);
      if (!shape) return;
      std::vector<int64_t> mperm;
      for (size_t gi = 0; gi < groups.size(); ++gi) mperm.push_back(position[gi]);
      ir::Value* s = rw.add_initializer(g, ops::make_tensor<int64_t>({static_cast<int64_t>(shape->size())}, *shape),
                                        c.r1->output(0)->name() + "_merged_shape");
      rw.set_input(c.r1, 1, s);
      rw.set_attribute(c.tr, ir::Attribute::make_ints("perm", mperm));
      set_final_shape(c, g, rw);
      c.r1->output(0)->type = ir::Type{};
      c.tr->output(0)->type = ir::Type{};
      return;
    }
    // Iterative rank-4 steps.
    std::vector<bool> taken(rank, false);
    Expr leading = Expr::constant(1);
    std::vector<std::pair<std::vector<int64_t>, bool>> steps;
    for (size_t i = 0; i < rank; ++i) {
      auto a = static_cast<size_t>(perm[i]);
      Expr before = Expr::constant(1), after = Expr::constant(1);
      for (size_t k = 0; k < rank; ++k) {
        if (taken[k] || k == a) continue;
        if (k < a) before = before * d[k];
        else after = after * d[k];
      }
      auto shape = reshape_constant_target({leading, before, d[a], after});
      if (!shape) return;
      steps.push_back({*shape, true});
      taken[a] = true;
      leading = leading * d[a];
    }
    // Build: x -> [Reshape_i -> Transpose_i]* -> Reshape2(shape input unchanged).
    ir::Value* cur = x;
    for (size_t i = 0; i < steps.size(); ++i) {
      ir::Value* s = rw.add_initializer(g, ops::make_tensor<int64_t>({4}, steps[i].first),
                                        c.r1->output(0)->name() + "_step" + std::to_string(i) + "_shape");
      ir::Node* r =
          rw.insert_node(g, c.r2, "Reshape", {cur, s}, 1, c.r1->output(0)->name() + "_step" + std::to_string(i));
      ir::Node* t = rw.insert_node(g, c.r2, "Transpose", {r->output(0)}, 1,
                                   c.tr->output(0)->name() + "_step" + std::to_string(i));
      t->attributes.push_back(ir::Attribute::make_ints("perm", {0, 2, 1, 3}));
      cur = t->output(0);
    }
    rw.set_input(c.r2, 0, cur);
    set_final_shape(c, g, rw);
    rw.erase_node(c.tr);
    rw.erase_node(c.r1);
  }
};

}  // namespace

static const bool onnxtrim_pass_registered_coreml = [] {
  PassRegistry::instance().add(
      {"legalize_coreml",
       "(--target coreml) Reshape->Transpose->Reshape through rank >= 6 rewritten with merged axes or "
       "rank-4 steps; warns about any value left above rank 5",
       false, [] { return std::unique_ptr<Pass>(new LegalizeCoreml()); }});
  return true;
}();

}  // namespace onnxtrim::passes
