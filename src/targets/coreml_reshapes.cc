// legalize_coreml_reshapes (--target coreml): a Reshape pair through rank >= 6 becomes one
// Reshape, and a Shape of the rank-6 value is answered by the first Reshape's target:
//
//   y = Reshape(Reshape(x, sA), sB)   [Reshape(x, sA) of rank >= 6, y of rank <= 5]
//     -> y = Reshape(x, sB)                       (or sB' = y's known dims, see below)
//   Shape(Reshape(x, sA))  ->  sA                 (their elements are equal: the facts)
//
// A Reshape keeps the elements in order, so reshaping twice is reshaping once to the final
// target, whatever the intermediate. The target sB stays as it is (the model stays dynamic: on
// RAFT's correlation volume it is computed from the input's dims) unless one of its elements is
// the constant 0 (copy the input's dim, allowzero 0) at a position where x's dim is not the
// intermediate's; then the target is y's known dims as a constant (at most one symbolic, as -1).
// An element of sB that is not a constant is a size, as shape inference takes it (the facts
// that y's dims equal it). sB may read the intermediate only through Shapes (torch's
// `b, h, w, c, _, _ = corr.shape` before `corr.reshape(b * h * w, c, h, w)`): each is answered
// with sA when the facts say sA's elements are the Shape's (no 0 or -1 in sA), so nothing reads
// the rank-6 value any more. The element-wise op RAFT has between the Reshapes (a Div by a
// scalar) has already been moved before the first one by legalize_coreml.
// Refuses: an intermediate that is a graph output or has readers other than the second Reshape
// and whole-vector Shapes in the same graph; a Shape whose elements are not sA's; a target whose
// copies differ and whose dims are not constant but for one; unknown ranks; Reshape-1 (shape
// as an attribute).
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "targets/reshape_target.h"

namespace onnxtrim::passes {
namespace {

using symbolic::Expr;

struct ReshapePair {
  ir::Node* first;                             // Reshape(x, sA), of rank >= 6
  std::vector<ir::Node*> shapes;               // Shape readers of its output, answered with sA
  std::optional<std::vector<int64_t>> target;  // a new constant target for the second, or keep sB
};

class LegalizeCoremlReshapes final : public Rule<ReshapePair> {
 public:
  std::vector<std::string> roots() const override { return {"Reshape"}; }

 protected:
  Match<ReshapePair> match(const ir::Node& n, RuleContext& ctx) override {
    if (n.num_inputs() < 2 || !n.input(0) || !n.input(1)) return refuse("the Reshape has no shape input");
    ir::Value* mid = n.input(0);
    ir::Node* first = mid->producer();
    if (!is_op(first, "Reshape") || first->graph() != n.graph())
      return refuse("its input is not a Reshape of the same graph");
    if (first->num_inputs() < 2 || !first->input(0) || !first->input(1))
      return refuse("the first Reshape has no shape input");
    if (mid->is_graph_output()) return refuse("the first Reshape's output is a graph output");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("no facts");
    const ops::TypeInfo* fx = si->facts(first->input(0));
    const ops::TypeInfo* fm = si->facts(mid);
    const ops::TypeInfo* fy = si->facts(n.output(0));
    if (!fx || !fx->shape || !fm || !fm->shape || !fy || !fy->shape) return refuse("a rank is unknown");
    if (fm->rank() < 6) return refuse("the intermediate is of rank " + std::to_string(fm->rank()) + " (< 6)");
    if (fy->rank() > 5) return refuse("the result is of rank " + std::to_string(fy->rank()) + " (> 5)");

    ReshapePair fit{first, {}, std::nullopt};
    // Readers of the intermediate: this Reshape once, and Shapes answered by sA.
    size_t self = 0;
    for (const ir::Use& u : mid->uses()) {
      if (u.node == &n) {
        if (u.index != 0) return refuse("the Reshape reads the intermediate as its shape");
        ++self;
        continue;
      }
      if (!answer_shape(*u.node, *first, *si))
        return refuse("the intermediate has a reader other than a Shape answered by the first target");
      fit.shapes.push_back(u.node);
    }
    if (self != 1) return refuse("the Reshape reads the intermediate more than once");

    // The second target: kept, unless a 0 in it would copy a dim that differs between x and
    // the intermediate.
    if (!keeps_meaning(n, *fx->shape, *fm->shape, *si)) {
      fit.target = reshape_constant_target(*fy->shape);
      if (!fit.target)
        return refuse("the target copies a dim of the intermediate and the result has more than one symbolic dim");
    }
    return fit;
  }

  void apply(ir::Node& n, ReshapePair& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Value* sa = m.first->input(1);
    for (ir::Node* s : m.shapes)
      if (rw.replace_all_uses_with(s->output(0), sa)) rw.erase_node(s);
    if (m.first->output(0)->uses().size() != 1) return;  // a Shape kept its reader (cannot happen: can_replace)
    if (m.target) {
      const auto& t = *m.target;
      ir::Value* c = rw.add_initializer(ctx.graph(), ops::make_tensor<int64_t>({static_cast<int64_t>(t.size())}, t),
                                        n.output(0)->name() + "_shape");
      rw.set_input(&n, 1, c);
    }
    rw.set_input(&n, 0, m.first->input(0));
    rw.erase_node(m.first);
  }

 private:
  // A Shape reading the intermediate whole, whose elements (the facts) are sA's.
  static bool answer_shape(const ir::Node& s, const ir::Node& first, const ShapeInference& si) {
    if (!is_op(&s, "Shape") || s.graph() != first.graph() || s.num_outputs() != 1 || !s.output(0)) return false;
    if (s.attr_int("start", 0) != 0 || s.has_attr("end")) return false;
    if (!ir::Rewriter::can_replace(s.output(0), first.input(1))) return false;
    const ops::TypeInfo* fs = si.facts(s.output(0));
    const ops::TypeInfo* fa = si.facts(first.input(1));
    return fs && fs->values && fa && fa->values && fa->elem == ir::DataType::kInt64 && *fs->values == *fa->values;
  }

  // Reshape(x, sB) computes what Reshape(mid, sB) does: every constant 0 of sB (a copy, without
  // allowzero) copies a dim x and the intermediate have alike. Unknown elements: refused.
  static bool keeps_meaning(const ir::Node& n, const ops::SymShape& x, const ops::SymShape& mid,
                            const ShapeInference& si) {
    if (n.attr_int("allowzero", 0) != 0) return true;
    const ops::TypeInfo* fs = si.facts(n.input(1));
    if (!fs || !fs->values) return false;
    for (size_t i = 0; i < fs->values->size(); ++i) {
      auto c = (*fs->values)[i].constant_value();
      if (!c || *c != 0) continue;
      if (i >= x.size() || i >= mid.size() || x[i] != mid[i]) return false;
    }
    return true;
  }
};

}  // namespace

ONNXTRIM_REGISTER_TARGET_RULE(
    LegalizeCoremlReshapes, "legalize_coreml_reshapes",
    "(--target coreml) Reshape(Reshape(x) [rank >= 6]) [rank <= 5] becomes one Reshape, the "
    "target kept (dynamic) or from the known dims; Shapes of the rank-6 value answered by the "
    "first target; refuses other readers of it");

}  // namespace onnxtrim::passes
