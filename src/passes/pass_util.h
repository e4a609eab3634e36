// Small helpers shared by passes.
#pragma once

#include "ir/graph.h"
#include "ops/registry.h"

namespace onnxtrim::passes {

// The node's op is deterministic and side-effect free as far as the registry knows: a default-
// domain op the registry lists as deterministic. Custom-domain ops are assumed to be neither.
inline bool is_pure(const ir::Node& n) {
  if (!n.is_default_domain()) return false;
  const ops::OpSchema* s = ops::OpRegistry::instance().find_any(n.domain, n.op_type);
  if (s) return s->deterministic;
  // Not (yet) known to the evaluator: the random ops of the default domain are the only impure ones.
  static const char* kRandom[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                  "Bernoulli", "Multinomial"};
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
