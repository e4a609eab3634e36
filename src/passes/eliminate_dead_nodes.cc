// eliminate_dead_nodes: removes nodes none of whose outputs reach a graph output (walking the
// graph backwards, so whole dead chains go in one run), and turns unused optional trailing
// outputs of default-domain ops into "" (e.g. Dropout's mask, MaxPool's Indices).
// Refuses: nodes of custom domains that have no outputs (they can only exist for a side effect).
#include <map>
#include <set>

#include "passes/pass.h"
#include "passes/pass_util.h"

namespace onnxtrim::passes {
namespace {

// Outputs (by index) that the ONNX spec marks optional, for ops that have such outputs.
const std::map<std::string, std::set<size_t>>& optional_outputs() {
  static const std::map<std::string, std::set<size_t>> m = {
      {"Dropout", {1}},
      {"MaxPool", {1}},
      {"BatchNormalization", {1, 2, 3, 4}},
      {"LayerNormalization", {1, 2}},
      {"LSTM", {0, 1, 2}},
      {"GRU", {0, 1}},
      {"RNN", {0, 1}},
      {"Unique", {1, 2, 3}},
      {"DynamicQuantizeLinear", {}},
      {"SoftmaxCrossEntropyLoss", {1}},
      {"Attention", {1, 2, 3}},
  };
  return m;
}

class EliminateDeadNodes final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    std::vector<ir::Node*> nodes = g.node_list();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      ir::Node* n = *it;
      if (n->is_dead()) continue;
      bool has_outputs = false;
      for (const ir::Value* o : n->outputs()) has_outputs |= o != nullptr;
      if (!has_outputs && !n->is_default_domain()) continue;  // side effect only
      if (all_outputs_unused(*n) && (is_pure(*n) || !n->is_default_domain())) {
        rw.erase_node(n);
        continue;
      }
      if (!n->is_default_domain()) continue;
      auto opt = optional_outputs().find(n->op_type);
      if (opt == optional_outputs().end()) continue;
      // Trailing unused optional outputs are dropped; inner ones become "".
      for (size_t i = n->num_outputs(); i-- > 0;) {
        ir::Value* o = n->output(i);
        if (!o || o->has_uses() || o->is_graph_output() || !opt->second.count(i)) continue;
        g.set_node_output(n, i, nullptr);
        g.erase_value(o);
        rw.note_change();
      }
      g.trim_trailing_empty_outputs(n);
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateDeadNodes, "eliminate_dead_nodes", 900,
                       "removes nodes whose results reach no graph output, and unused optional outputs; "
                       "keeps custom-domain nodes without outputs");

}  // namespace onnxtrim::passes
