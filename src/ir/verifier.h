// Structural checks of the IR: SSA, use lists in both directions, topological order, every
// use resolved in its scope or an enclosing one. Runs after every pass in tests/debug builds.
#pragma once

#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::ir {

Status verify_model(const Model& m);
Status verify_graph(const Graph& g);

}  // namespace onnxtrim::ir
