// Loop(M = 0, cond, v...) -> v: a loop whose trip count is the constant 0 never runs its body,
// so its loop-carried outputs are the initial values.
// Refuses: loops with scan outputs (their empty shapes are not known in general), a graph
// output that cannot keep its name.
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class EliminateZeroTripLoop final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    for (ir::Node* n : g.node_list())
      if (!n->is_dead() && matches(*n)) apply(*n, rw);
  }

 private:
  static bool matches(const ir::Node& n) {
    if (n.op_type != "Loop" || !n.is_default_domain()) return false;
    const ir::Tensor* m = ops::FoldContext::constant(n.input(0));
    if (!m || m->numel() != 1 || !m->bytes() || ops::element_as_double(*m, 0) != 0) return false;
    size_t carried = n.num_inputs() >= 2 ? n.num_inputs() - 2 : 0;
    if (n.num_outputs() > carried) {
      for (size_t i = carried; i < n.num_outputs(); ++i)
        if (n.output(i)) return false;  // a scan output is wanted
    }
    for (size_t i = 0; i < std::min(carried, n.num_outputs()); ++i) {
      const ir::Value* o = n.output(i);
      if (o && !ir::Rewriter::can_replace(o, n.input(i + 2))) return false;
    }
    return true;
  }

  static void apply(ir::Node& n, ir::Rewriter& rw) {
    size_t carried = n.num_inputs() - 2;
    for (size_t i = 0; i < std::min(carried, n.num_outputs()); ++i)
      if (ir::Value* o = n.output(i)) rw.replace_all_uses_with(o, n.input(i + 2));
    for (const ir::Value* o : n.outputs())
      if (o && (o->has_uses() || o->is_graph_output())) return;
    rw.erase_node(&n);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateZeroTripLoop, "eliminate_zero_trip_loop", 31,
                       "a Loop with constant trip count 0 becomes its initial values; refuses loops with scan outputs");

}  // namespace onnxtrim::passes
