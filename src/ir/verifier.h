// Structural checks of the IR: SSA, use lists in both directions, topological order, every
// use resolved in its scope or an enclosing one. Runs after every pass in tests/debug builds.
#pragma once

#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::ir {

Status verify_model(const Model& m);
Status verify_graph(const Graph& g);

// What every writer checks before a byte is written, whatever the options: verify_model (and
// function bodies), and, unless the file's own names and types did not pass it
// (Model::unchecked_names_and_types), check_names_and_types. A failure is an internal error
// naming what last changed the model (Model::changed_by).
Status verify_for_write(const Model& m);
// Every node output named, every value name valid UTF-8 and the one value of that name in its
// scope, every initializer's declared type that of its tensor (main graph, subgraphs, functions).
Status check_names_and_types(const Model& m);

// Subgraphs (If branches, Loop/Scan bodies, any graph attribute) may nest at most this many
// levels below the main graph. The loader refuses deeper models, and so do simplify and save
// (the IR's walkers recurse once per level: the limit keeps them far from the stack's end).
constexpr int kMaxSubgraphDepth = 64;
// How deeply the subgraphs of m (functions included) nest, counted without recursion; stops
// counting past kMaxSubgraphDepth + 1.
int subgraph_depth(const Model& m);
// An "unsupported" error when m nests deeper than kMaxSubgraphDepth.
Status check_subgraph_depth(const Model& m);

}  // namespace onnxtrim::ir
