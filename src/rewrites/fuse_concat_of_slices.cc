// Concat(Slice(x, [0, b1)), Slice(x, [b1, b2)), ..., Slice(x, [bk-1, end)), axis = a) -> x
//   Slices of the same x along the Concat axis only (step 1), in order, each starting where
//   the previous one ended, from 0 to the end of the axis, cover x exactly. Bounds are resolved
//   with the dim when it is known; with an unknown dim they must be non-negative and the last
//   end open (INT64_MAX, or INT32_MAX). Pure data movement: exact for every type.
// Refuses: slices of different inputs, along other axes, with other steps, gaps or overlaps,
// a slice output with other consumers or that is a graph output, a Concat output that cannot be
// replaced by x (x a graph input and the Concat output a graph output).
#include <algorithm>

#include "passes/rule.h"
#include "rewrites/slice_spec.h"

namespace onnxtrim::passes {
namespace {

struct Covered {
  ir::Value* x = nullptr;
};

class FuseConcatOfSlices final : public Rule<Covered> {
 public:
  std::vector<std::string> roots() const override { return {"Concat"}; }

 protected:
  Match<Covered> match(const ir::Node& cat, RuleContext& ctx) override {
    if (cat.num_inputs() == 0) return refuse("no inputs");
    ir::Value* x = covered_input(cat, ctx.opset());
    if (!x) return refuse("the inputs are not Slices of one x, read only here, that cover it in order along the axis");
    if (!ir::Rewriter::can_replace(cat.output(0), x)) return refuse("the output cannot take x's place (its name)");
    return Covered{x};
  }

  void apply(ir::Node& cat, Covered& f, RuleContext&, ir::Rewriter& rw) override {
    if (rw.replace_all_uses_with(cat.output(0), f.x)) rw.erase_node_and_dead_producers(&cat);
  }

 private:
  static ir::Value* covered_input(const ir::Node& cat, int64_t opset) {
    const ir::Value* first = cat.input(0);
    if (!first || !first->producer() || first->producer()->op_type != "Slice") return nullptr;
    ir::Value* x = first->producer()->input(0);
    if (!x) return nullptr;
    int64_t rank = x->type.rank();
    if (rank < 0) rank = cat.output(0)->type.rank();
    int64_t axis = cat.attr_int("axis", opset < 4 ? 1 : 0);
    if (axis < 0) {
      if (rank < 0) return nullptr;
      axis += rank;
    }
    if (axis < 0 || (rank >= 0 && axis >= rank)) return nullptr;
    std::optional<int64_t> d = known_dim(x, axis);
    int64_t at = 0;  // where the next slice must start
    bool open = false;
    for (size_t i = 0; i < cat.num_inputs(); ++i) {
      const ir::Value* v = cat.input(i);
      if (!v || !v->producer() || v->uses().size() != 1 || v->is_graph_output()) return nullptr;
      const ir::Node& s = *v->producer();
      if (s.op_type != "Slice" || !s.is_default_domain() || s.input(0) != x || s.num_outputs() != 1) return nullptr;
      if (open) return nullptr;  // nothing may follow a slice to the end of an unknown axis
      auto w = slice_windows(s, opset, rank);
      if (!w) return nullptr;
      AxisWindow win{0, std::numeric_limits<int64_t>::max(), 1};
      for (const auto& [a, aw] : *w) {
        if (a == axis) {
          win = aw;
          continue;
        }
        // Other axes must be taken whole.
        auto r = resolve_window(aw, known_dim(x, a));
        if (!r || r->first != 0) return nullptr;
        auto da = known_dim(x, a);
        if (!(da ? r->second >= *da : is_open_end(aw.end))) return nullptr;
      }
      auto r = resolve_window(win, d);
      if (!r || r->first != at) return nullptr;
      if (!d && is_open_end(r->second)) open = true;
      at = std::max(at, r->second);
    }
    if (d ? at != *d : !open) return nullptr;
    return x;
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseConcatOfSlices, "fuse_concat_of_slices",
    "Concat of Slices of the same input that cover it exactly in order along the Concat axis -> the input; "
    "refuses gaps, overlaps, other axes or steps, shared slices");

}  // namespace onnxtrim::passes
