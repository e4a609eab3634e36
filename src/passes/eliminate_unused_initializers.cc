// eliminate_unused_initializers: drops initializers nothing reads.
// Refuses: initializers that are also graph inputs (they are overridable defaults) or outputs.
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class EliminateUnusedInitializers final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    std::vector<ir::Value*> inits = g.initializers();
    for (ir::Value* v : inits)
      if (!v->has_uses() && !v->is_graph_input() && !v->is_graph_output()) rw.remove_initializer(v);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateUnusedInitializers, "eliminate_unused_initializers",
                       "drops initializers nothing reads; keeps those that are also graph inputs");

}  // namespace onnxtrim::passes
