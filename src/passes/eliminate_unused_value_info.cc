// eliminate_unused_value_info: drops value_info entries that describe no value of the graph
// (names that no node, input or initializer defines).
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class EliminateUnusedValueInfo final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    std::vector<ir::Value*> vi = g.value_info_order();
    for (ir::Value* v : vi) {
      if (v->producer() || v->is_graph_input() || v->is_initializer() || v->is_graph_output() || v->has_uses())
        continue;
      rw.remove_value_info(v);
      g.erase_value(v);
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateUnusedValueInfo, "eliminate_unused_value_info",
                       "drops value_info entries that name no value of the graph");

}  // namespace onnxtrim::passes
