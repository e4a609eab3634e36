// eliminate_identity: Identity(x) -> x, chains included.
// Refuses: an Identity whose output is a graph output fed directly by a graph input,
// initializer or another output (the output name could not be kept without a node).
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class EliminateIdentity final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || n->op_type != "Identity" || !n->is_default_domain()) continue;
      ir::Value* in = n->input(0);
      ir::Value* out = n->output(0);
      if (!in || !out) continue;
      if (!rw.replace_all_uses_with(out, in)) continue;
      rw.erase_node(n);
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(
    EliminateIdentity, "eliminate_identity",
    "Identity(x) -> x; keeps an Identity that carries a graph output name from an input or initializer");

}  // namespace onnxtrim::passes
