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
#include "passes/rule.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

using symbolic::Expr;

// What the rule does at the root: a Reshape or Expand that does nothing goes (its output
// replaced by its input), or a Reshape gets the constant target.
struct ShapeChain {
  bool remove = false;
  std::vector<int64_t> target;  // the Reshape's new constant shape, when !remove
};

// The facts are those of the graph when the rule started on it (ctx.facts(): inferred at the
// first Reshape or Expand, before any change of this run); a value made since has none.
class SimplifyShapeChains final : public Rule<ShapeChain> {
 public:
  std::vector<std::string> roots() const override { return {"Reshape", "Expand"}; }

 protected:
  Match<ShapeChain> match(const ir::Node& n, RuleContext& ctx) override {
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    return n.op_type == "Reshape" ? match_reshape(n, *si) : match_expand(n, *si);
  }

  void apply(ir::Node& n, ShapeChain& fit, RuleContext& ctx, ir::Rewriter& rw) override {
    if (fit.remove) {
      if (rw.replace_all_uses_with(n.output(0), n.input(0))) rw.erase_node(&n);
      return;
    }
    ir::Tensor t = ops::make_tensor<int64_t>({static_cast<int64_t>(fit.target.size())}, fit.target);
    ir::Value* c = rw.add_initializer(ctx.graph(), std::move(t), n.input(1)->name() + "_static");
    rw.set_input(&n, 1, c);
  }

 private:
  static Match<ShapeChain> match_reshape(const ir::Node& n, const ShapeInference& si) {
    ir::Value* x = n.input(0);
    ir::Value* s = n.input(1);
    if (!x || !s || !n.output(0)) return refuse("an input or the output is absent");
    const ops::TypeInfo* fx = si.facts(x);
    const ops::TypeInfo* fs = si.facts(s);
    const ops::TypeInfo* fy = si.facts(n.output(0));
    if (!fx || !fx->shape) return refuse("the input's shape is not known");
    if (!fs || !fs->values || !fs->shape || fs->shape->size() != 1)
      return refuse("the target's elements are not known");
    if (!fy || !fy->shape) return refuse("the output's shape is not known");
    const auto& in = *fx->shape;
    const auto& out = *fy->shape;  // resolved output dims
    if (out.size() != fs->values->size()) return refuse("the output's rank is not the target's length");
    // Output equals input: the Reshape does nothing.
    if (in == out) {
      if (!ir::Rewriter::can_replace(n.output(0), x))
        return refuse("it does nothing, but its output name cannot be kept");
      return ShapeChain{true, {}};
    }
    if (s->is_initializer() || (s->producer() && s->producer()->op_type == "Constant"))
      return refuse("the target is already a constant");
    bool allowzero = n.attr_int("allowzero", 0) != 0;
    ShapeChain fit;
    int minus_one = -1;
    for (size_t k = 0; k < out.size(); ++k) {
      if (auto c = out[k].constant_value()) {
        // A literal 0 would mean "copy".
        if (*c == 0 && !allowzero) return refuse("dim " + std::to_string(k) + " is 0 and allowzero is 0");
        fit.target.push_back(*c);
      } else if (!allowzero && k < in.size() && out[k] == in[k]) {
        fit.target.push_back(0);
      } else {
        if (minus_one >= 0) return refuse("more than one dim is neither known nor a copy of the input's");
        minus_one = static_cast<int>(k);
        fit.target.push_back(-1);
      }
    }
    return fit;
  }

  static Match<ShapeChain> match_expand(const ir::Node& n, const ShapeInference& si) {
    ir::Value* x = n.input(0);
    if (!x || !n.output(0)) return refuse("the input or the output is absent");
    const ops::TypeInfo* fx = si.facts(x);
    const ops::TypeInfo* fs = si.facts(n.input(1));
    if (!fx || !fx->shape) return refuse("the input's shape is not known");
    if (!fs || !fs->values || !fs->shape || fs->shape->size() != 1) return refuse("the shape's elements are not known");
    const auto& in = *fx->shape;
    const auto& want = *fs->values;
    if (want.size() > in.size()) return refuse("the shape is longer than the input's rank (it adds dims)");
    size_t off = in.size() - want.size();
    for (size_t k = 0; k < want.size(); ++k) {
      auto c = want[k].constant_value();
      if (c && *c == 1) continue;
      if (want[k] == in[off + k]) continue;
      return refuse("element " + std::to_string(k) + " of the shape is neither 1 nor the input's dim");
    }
    if (!ir::Rewriter::can_replace(n.output(0), x))
      return refuse("it does nothing, but its output name cannot be kept");
    return ShapeChain{true, {}};
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    SimplifyShapeChains, "simplify_shape_chains",
    "Shape->Gather->Unsqueeze->Concat->Reshape chains become a constant shape with 0/-1 (the model stays dynamic); "
    "no-op Reshape/Expand removed; refuses when more than one dim is unknown");

}  // namespace onnxtrim::passes
