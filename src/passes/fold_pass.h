// A pass that runs the local folds registered under its name by the op files (DESIGN.md
// "One op, one file", section 5). Folds create no node; each proves exactness or does nothing.
#pragma once

#include <string>

#include "ops/fold.h"
#include "passes/pass.h"

namespace onnxtrim::passes {

class FoldPass : public Pass {
 public:
  explicit FoldPass(std::string name) : name_(std::move(name)) {}
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead()) continue;
      for (ops::FoldFn fold : ops::OpRegistry::instance().find_folds(n->domain, n->op_type, name_)) {
        if (n->is_dead()) break;
        ops::FoldContext fc(rw, ctx.model.opset(n->domain));
        fold(*n, fc);
      }
    }
  }

 private:
  std::string name_;
};

}  // namespace onnxtrim::passes
