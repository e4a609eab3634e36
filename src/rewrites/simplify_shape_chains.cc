// Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [16, 64]))  ->  Reshape(x, [0, 16, 64])
// Expand(x, s) with broadcast(shape(x), s) == shape(x)           ->  x
//
// When value propagation knows a Reshape's target shape element by element (as symbolic dims),
// the shape computation is replaced by a constant: known sizes stay, a dim equal to the input's
// dim at the same position becomes 0 (copy), and at most one remaining dim becomes -1. The model
// stays dynamic: no symbolic dim is frozen to a number. A Reshape whose output shape provably
// equals its input shape is removed.
// Refuses: allowzero=1 when a 0 would be needed, more than one dim that is neither known nor a
// copy, a Reshape output that is a graph output fed straight from a graph input.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

using symbolic::Expr;

class SimplifyShapeChains final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    bool any = false;
    for (const ir::Node* n : g.node_list()) any |= n->op_type == "Reshape" || n->op_type == "Expand";
    if (!any) return;
    auto facts = current_facts(ctx);
    if (!facts) return;
    const ShapeInference& si = *facts;
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || !n->is_default_domain()) continue;
      if (n->op_type == "Reshape") simplify_reshape(*n, si, g, rw);
      else if (n->op_type == "Expand") simplify_expand(*n, si, rw);
    }
  }

 private:
  static void simplify_reshape(ir::Node& n, const ShapeInference& si, ir::Graph& g, ir::Rewriter& rw) {
    ir::Value* x = n.input(0);
    ir::Value* s = n.input(1);
    if (!x || !s || !n.output(0)) return;
    const ops::TypeInfo* fx = si.facts(x);
    const ops::TypeInfo* fs = si.facts(s);
    const ops::TypeInfo* fy = si.facts(n.output(0));
    if (!fx || !fx->shape || !fs || !fs->values || !fs->shape || fs->shape->size() != 1 || !fy || !fy->shape) return;
    const auto& in = *fx->shape;
    const auto& out = *fy->shape;  // resolved output dims
    if (out.size() != fs->values->size()) return;
    // Output equals input: the Reshape does nothing.
    if (in == out) {
      if (rw.replace_all_uses_with(n.output(0), x)) rw.erase_node(&n);
      return;
    }
    if (s->is_initializer() || (s->producer() && s->producer()->op_type == "Constant")) {
      return;  // already constant
    }
    bool allowzero = n.attr_int("allowzero", 0) != 0;
    std::vector<int64_t> target;
    int minus_one = -1;
    for (size_t k = 0; k < out.size(); ++k) {
      if (auto c = out[k].constant_value()) {
        if (*c == 0 && !allowzero) return;  // a literal 0 would mean "copy"
        target.push_back(*c);
      } else if (!allowzero && k < in.size() && out[k] == in[k]) {
        target.push_back(0);
      } else {
        if (minus_one >= 0) return;
        minus_one = static_cast<int>(k);
        target.push_back(-1);
      }
    }
    ir::Tensor t = ops::make_tensor<int64_t>({static_cast<int64_t>(target.size())}, target);
    ir::Value* c = rw.add_initializer(g, std::move(t), s->name() + "_static");
    rw.set_input(&n, 1, c);
  }

  static void simplify_expand(ir::Node& n, const ShapeInference& si, ir::Rewriter& rw) {
    ir::Value* x = n.input(0);
    if (!x || !n.output(0)) return;
    const ops::TypeInfo* fx = si.facts(x);
    const ops::TypeInfo* fs = si.facts(n.input(1));
    if (!fx || !fx->shape || !fs || !fs->values || !fs->shape || fs->shape->size() != 1) return;
    const auto& in = *fx->shape;
    const auto& want = *fs->values;
    if (want.size() > in.size()) return;
    size_t off = in.size() - want.size();
    for (size_t k = 0; k < want.size(); ++k) {
      auto c = want[k].constant_value();
      if (c && *c == 1) continue;
      if (want[k] == in[off + k]) continue;
      return;
    }
    if (rw.replace_all_uses_with(n.output(0), x)) rw.erase_node(&n);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(SimplifyShapeChains, "simplify_shape_chains",
                       "Shape->Gather->Unsqueeze->Concat->Reshape chains become a constant shape with 0/-1 (the model stays dynamic); "
                       "no-op Reshape/Expand removed; refuses when more than one dim is unknown");

}  // namespace onnxtrim::passes
