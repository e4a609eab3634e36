// Loop(M = 0, cond, v...) -> v: a loop whose trip count is the constant 0 never runs its body,
// so its loop-carried outputs are the initial values.
// Refuses: loops with scan outputs (their empty shapes are not known in general), a graph
// output that cannot keep its name.
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"

namespace onnxtrim::passes {
namespace {

struct ZeroTrip {};

class EliminateZeroTripLoop final : public Rule<ZeroTrip> {
 public:
  std::vector<std::string> roots() const override { return {"Loop"}; }

 protected:
  Match<ZeroTrip> match(const ir::Node& n, RuleContext&) override {
    const ir::Tensor* m = ops::FoldContext::constant(n.input(0));
    if (!m || m->numel() != 1 || !m->bytes() || ops::element_as_double(*m, 0) != 0)
      return refuse("the trip count is not the constant 0");
    size_t carried = n.num_inputs() >= 2 ? n.num_inputs() - 2 : 0;
    for (size_t i = carried; i < n.num_outputs(); ++i)
      if (n.output(i)) return refuse("a scan output is wanted");
    for (size_t i = 0; i < std::min(carried, n.num_outputs()); ++i) {
      const ir::Value* o = n.output(i);
      if (o && !ir::Rewriter::can_replace(o, n.input(i + 2))) return refuse("an output cannot keep its name");
    }
    return ZeroTrip{};
  }

  void apply(ir::Node& n, ZeroTrip&, RuleContext&, ir::Rewriter& rw) override {
    size_t carried = n.num_inputs() - 2;
    for (size_t i = 0; i < std::min(carried, n.num_outputs()); ++i)
      if (ir::Value* o = n.output(i)) rw.replace_all_uses_with(o, n.input(i + 2));
    for (const ir::Value* o : n.outputs())
      if (o && (o->has_uses() || o->is_graph_output())) return;
    rw.erase_node(&n);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(EliminateZeroTripLoop, "eliminate_zero_trip_loop",
                       "a Loop with constant trip count 0 becomes its initial values; refuses loops with scan outputs");

}  // namespace onnxtrim::passes
