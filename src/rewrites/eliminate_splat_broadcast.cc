// op(x, s) -> op(x, c)   for an elementwise op with multidirectional broadcasting, where s
// repeats one value c (ConstantOfShape, Expand or Tile of a constant, or a stored splat) and
// the other inputs' broadcast shape already covers s's shape (each dim of s is 1 or provably
// equal to it): s only repeats c where broadcasting would. c becomes a scalar constant, so
// the generator goes and no large splat is stored.
// Refuses: a splat of higher rank than the other inputs' broadcast, or with a dim not proved
// 1 or equal to theirs (it would grow the output); a splat that is already a scalar; ops that
// broadcast one way only (PRelu) or not at all.
#include <algorithm>
#include <optional>

#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"
#include "symbolic/bounds.h"

namespace onnxtrim::passes {
namespace {

// A splat input that is not already a scalar constant.
bool candidate(const ir::Value* v) {
  auto s = splat_of(v);
  if (!s) return false;
  if (!s->generator) {
    const ir::Tensor* t = v->initializer();
    if (!t && v->producer()) {
      const ir::Attribute* a = v->producer()->attr("value");
      t = a && a->t ? a->t.get() : nullptr;
    }
    return t && t->rank() > 0;
  }
  return true;
}

// The inputs that become scalars.
struct SplatInputs {
  std::vector<size_t> inputs;
};

class EliminateSplatBroadcast final : public Rule<SplatInputs> {
 public:
  std::vector<std::string> roots() const override {
    return {"Add",       "Sub",        "Mul",     "Div",         "Pow",
            "Mod",       "Max",        "Min",     "Sum",         "Mean",
            "Equal",     "Less",       "Greater", "LessOrEqual", "GreaterOrEqual",
            "And",       "Or",         "Xor",     "BitShift",    "BitwiseAnd",
            "BitwiseOr", "BitwiseXor", "Where"};
  }

 protected:
  // The inputs' shapes are read before any of them changes, and a splat made a scalar counts
  // as one from then on (a scalar's shape).
  Match<SplatInputs> match(const ir::Node& n, RuleContext& ctx) override {
    if (!n.output(0)) return refuse("no output");
    bool any = false;
    for (const ir::Value* in : n.inputs()) any = any || candidate(in);
    if (!any) return refuse("no input is a splat that is not a scalar already");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    std::vector<std::optional<ops::SymShape>> shapes(n.num_inputs());
    for (size_t i = 0; i < n.num_inputs(); ++i)
      if (const ops::TypeInfo* f = n.input(i) ? si->facts(n.input(i)) : nullptr; f && f->shape) shapes[i] = *f->shape;
    SplatInputs fit;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const ir::Value* s = n.input(i);
      if (!shapes[i] || !candidate(s)) continue;
      const ops::SymShape& fs = *shapes[i];
      // The broadcast of every other input.
      std::vector<const ops::SymShape*> others;
      bool known = true;
      for (size_t j = 0; j < n.num_inputs(); ++j) {
        if (j == i || !n.input(j)) continue;
        if (!shapes[j]) known = false;
        else others.push_back(&*shapes[j]);
      }
      if (!known || others.empty()) continue;
      bool bad = false;
      auto b = ops::broadcast(others, &bad);
      if (!b || bad || fs.size() > b->size()) continue;
      size_t off = b->size() - fs.size();
      bool covered = true;
      for (size_t k = 0; k < fs.size() && covered; ++k) {
        const symbolic::Expr& d = fs[k];
        if (d.constant_value() == 1) continue;
        covered = symbolic::prove_eq(d, (*b)[off + k]) == true;
      }
      if (!covered) continue;
      fit.inputs.push_back(i);
      shapes[i] = ops::SymShape{};
    }
    if (fit.inputs.empty())
      return refuse("every splat input would grow the output or has dims not proved to broadcast");
    return fit;
  }

  void apply(ir::Node& n, SplatInputs& f, RuleContext& ctx, ir::Rewriter& rw) override {
    for (size_t i : f.inputs) {
      ir::Value* s = n.input(i);
      auto sp = splat_of(s);
      rw.set_input(&n, i, rw.add_initializer(ctx.graph(), sp->value, s->name() + "_scalar"));
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    EliminateSplatBroadcast, "eliminate_splat_broadcast",
    "a splat operand (ConstantOfShape, Expand/Tile of a constant, a stored splat) of a broadcasting "
    "elementwise op becomes a scalar when the other operands already give the output's shape; refuses "
    "splats that would grow the output");

}  // namespace onnxtrim::passes
