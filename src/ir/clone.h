// Deep copy of a model (tensor bytes are shared copy-on-write, so this is cheap).
#pragma once

#include <memory>

#include "ir/graph.h"

namespace onnxtrim::ir {

std::unique_ptr<Model> clone_model(const Model& m);

// The body of model-local function `f` as called by `call`: a private model whose graph is a
// copy of the body with every attribute reference replaced by the caller's attribute (or the
// function's default; dropped when neither exists, so the op's own default applies).
std::unique_ptr<Model> instantiate_function(const Function& f, const Node& call);

}  // namespace onnxtrim::ir

#include <unordered_map>
#include <vector>

namespace onnxtrim::ir {

class Rewriter;

// Copies the nodes (and initializers) of `branch` into `dst` before `before`, with fresh
// model-unique names; nested subgraphs are copied too. Values of enclosing scopes stay
// referenced as they are; `map` receives old -> new for every copied value (prefill it to bind
// the branch's inputs). Returns the values that correspond to the branch's outputs.
std::vector<Value*> inline_graph(const Graph& branch, Graph& dst, Node* before, Rewriter& rw,
                                 std::unordered_map<const Value*, Value*>& map);

}  // namespace onnxtrim::ir
