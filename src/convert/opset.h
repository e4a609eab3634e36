// --opset N: converts a model's default ONNX domain to opset N, up or down, in every graph
// (If/Loop/Scan bodies) and every model-local function. Each node is stepped across every
// version boundary of its op between the two opsets: attribute <-> input moves where the
// moved value is a constant, changed defaults made explicit, semantic changes rewritten
// exactly, and the node's actual types checked against the version it lands on. An op with
// no version at N is expanded from its function body where the spec gives one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::convert {

struct OpsetResult {
  int64_t from = 0, to = 0;
  int64_t nodes_converted = 0;     // nodes whose op version changed
  int64_t nodes_rewritten = 0;     // of those, nodes whose attributes, inputs or neighbours changed
  int64_t nodes_expanded = 0;      // nodes replaced by their function body
  std::vector<std::string> notes;  // "LayerNormalization x2 expanded (no version at opset 13)"
};

// The lowest and highest opsets the converter takes (as source or target).
constexpr int64_t kMinOpset = 7;
int64_t max_opset();

// Converts in place. On failure (a node that cannot be expressed at N: an error of kind
// kUnsupported naming the node, its op and why) the model is left half converted: discard it.
Result<OpsetResult> convert_opset(ir::Model& m, int64_t target);

}  // namespace onnxtrim::convert
