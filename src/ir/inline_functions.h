// --inline-functions: calls of model-local functions (ModelProto.functions) become copies of
// the functions' bodies in the calling graph, subgraphs included.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::ir {

struct InlinedFunctions {
  int64_t calls = 0;                      // call nodes replaced (nested calls included)
  std::vector<std::string> inlined;       // "domain:name" of each function inlined at least once
  std::vector<std::string> removed;       // functions taken out of the model (nothing calls them now)
  std::vector<std::string> opsets_added;  // "domain=version" imports the functions brought in
};

// Each call's body is copied before it with fresh value names: the call's inputs are bound to the
// body's inputs (a missing optional input stays missing), its outputs keep their names, and
// attribute references take the call's attribute or the function's default (ir::instantiate_function,
// the evaluator's instantiation). Calls inside a body are inlined in turn. Refused, with the model
// unchanged: a function that calls itself (directly or through others); a function importing
// another version of a domain than the model does. Functions that nothing calls any more are
// removed from the model.
Result<InlinedFunctions> inline_functions(Model& m);

}  // namespace onnxtrim::ir
