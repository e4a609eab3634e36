// Small helpers shared by passes.
#pragma once

#include "ir/graph.h"
#include "ops/registry.h"

namespace onnxtrim::passes {

// Dropout draws a random mask in training mode: from opset 12 when its training_mode input is
// present and not a constant false; before opset 7 unless is_test is 1.
inline bool dropout_may_train(const ir::Node& n) {
  int64_t opset = n.graph() && n.graph()->model() ? n.graph()->model()->opset("") : 0;
  if (opset >= 12) {
    const ir::Value* t = n.num_inputs() > 2 ? n.input(2) : nullptr;
    if (!t) return false;
    const ir::Tensor* c = ir::constant_tensor_of(t);
    return !(c && c->numel() == 1 && c->bytes() && c->bytes()[0] == 0);
  }
  if (opset > 0 && opset < 7) return n.attr_int("is_test", 0) == 0;
  return false;
}

// The node's op is deterministic and side-effect free as far as the registry knows: a default-
// domain op the registry lists as deterministic. Custom-domain ops are assumed to be neither.
inline bool is_pure(const ir::Node& n) {
  if (!n.is_default_domain()) return false;
  if (n.op_type == "Dropout") return !dropout_may_train(n);
  const ops::OpSchema* s = ops::OpRegistry::instance().find_any(n.domain, n.op_type);
  if (s) return s->deterministic;
  // Not (yet) known to the evaluator: the random ops of the default domain are the only impure ones.
  static const char* kRandom[] = {"RandomNormal",      "RandomUniform", "RandomNormalLike",
                                  "RandomUniformLike", "Bernoulli",     "Multinomial"};
  for (const char* r : kRandom)
    if (n.op_type == r) return false;
  return true;
}

// True when every output of n is unused and none is a graph output.
inline bool all_outputs_unused(const ir::Node& n) {
  for (const ir::Value* o : n.outputs())
    if (o && (o->has_uses() || o->is_graph_output())) return false;
  return true;
}

}  // namespace onnxtrim::passes
