// eliminate_dead_nodes: removes nodes none of whose outputs reach a graph output (walking the
// graph backwards, so whole dead chains go in one run), and turns unused optional trailing
// outputs of default-domain ops into "" (e.g. Dropout's mask, MaxPool's Indices).
// Refuses: nodes of custom domains that have no outputs (they can only exist for a side effect).
#include <vector>

#include "passes/pass.h"
#include "passes/pass_util.h"

namespace onnxtrim::passes {
namespace {

// Outputs of n that may go when nothing reads them, in groups that go together (a group is
// dropped only when every member is unused). An output qualifies only when the spec marks it
// optional AND its presence selects no behaviour of the op. Ops whose output count is their
// mode keep their outputs:
//  - BatchNormalization before opset 14 has no training_mode attribute: five outputs mean
//    training mode (batch statistics), one output inference mode; dropping outputs would
//    change Y or make an invalid node. From opset 14, training_mode=1 requires running_mean
//    and running_var (output case #1); with training_mode=0 they are invalid anyway.
//  - Attention's present_key/present_value come as a pair, and only without past_key/
//    past_value ("used together, not only one of them").
std::vector<std::vector<size_t>> droppable_outputs(const ir::Node& n, int64_t opset) {
  const std::string& op = n.op_type;
  if (op == "Dropout" || op == "MaxPool" || op == "SoftmaxCrossEntropyLoss") return {{1}};
  if (op == "LayerNormalization") return {{1}, {2}};
  if (op == "Unique") return {{1}, {2}, {3}};
  if (op == "LSTM") return {{0}, {1}, {2}};
  if (op == "GRU" || op == "RNN") return {{0}, {1}};
  if (op == "BatchNormalization") {
    if (opset < 14 || n.attr_int("training_mode", 0) != 0) return {};
    return {{1}, {2}};
  }
  if (op == "Attention") {
    std::vector<std::vector<size_t>> groups{{3}};
    if (!n.input(4) && !n.input(5)) groups.push_back({1, 2});
    return groups;
  }
  return {};
}

class EliminateDeadNodes final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
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
      // Unused droppable outputs become ""; trailing empty ones are then trimmed.
      bool dropped = false;
      for (const std::vector<size_t>& group : droppable_outputs(*n, ctx.model.opset(""))) {
        bool unused = true;
        for (size_t i : group) {
          const ir::Value* o = n->output(i);
          if (o && (o->has_uses() || o->is_graph_output())) unused = false;
        }
        if (!unused) continue;
        for (size_t i : group) {
          ir::Value* o = n->output(i);
          if (!o) continue;
          g.set_node_output(n, i, nullptr);
          g.erase_value(o);
          rw.note_change(n);
          dropped = true;
        }
      }
      if (dropped) g.trim_trailing_empty_outputs(n);
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateDeadNodes, "eliminate_dead_nodes",
                       "removes nodes whose results reach no graph output, and unused optional outputs; "
                       "keeps custom-domain nodes without outputs");

}  // namespace onnxtrim::passes
