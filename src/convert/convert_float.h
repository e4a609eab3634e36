// --dtype fp16|bf16|fp32: the float precision conversion (convert_float.cc).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval/interpreter.h"
#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::convert {

struct ConvertFloatOptions {
  ir::DataType target = ir::DataType::kFloat16;  // kFloat16, kBFloat16 or kFloat (back to float32)
  bool keep_io_types = true;  // the main graph's inputs and outputs keep their types (Casts at the boundary)
  // A node stays in float32 when its own error, in the target type, exceeds this relative L2
  // error on the observed inputs (the check's tolerance).
  double tolerance = 1e-2;
  // A value stays in float32 when its largest magnitude on the observed inputs exceeds the
  // target's largest finite value divided by this (room for inputs larger than the check's).
  double range_headroom = 2;
};

// What one run of the model (before conversion) showed, recorded by the evaluator's observer:
// each float value's largest finite magnitude (infinities are exact in every float type), and each node's
// relative L2 error when its float inputs and outputs are rounded to the target type.
class FloatObservations {
 public:
  FloatObservations(const ir::Model& model, const ConvertFloatOptions& opts);
  ~FloatObservations();
  eval::Interpreter::Observer observer();
  std::unordered_map<const ir::Value*, double> max_abs;
  std::unordered_map<const ir::Node*, double> node_error;
  bool ran = false;

 private:
  const ir::Model& model_;
  ConvertFloatOptions opts_;
  std::unique_ptr<eval::Interpreter> probe_;
};

struct KeptNode {
  std::string node;    // "name (Op)"
  std::string reason;  // why it stays in float32
};

struct ConvertFloatResult {
  int64_t converted_nodes = 0;  // nodes whose float computation now runs in the target type
  int64_t casts_added = 0;
  int64_t initializers_converted = 0;  // constants stored in the target type
  std::vector<KeptNode> kept;          // nodes with float computation left in float32, and why
};

// Converts `model` in place (all changes through one Rewriter). `seen` may be null (the model
// could not be run): then no node is kept for its values' range or error.
Result<ConvertFloatResult> convert_float(ir::Model& model, const ConvertFloatOptions& opts,
                                         const FloatObservations* seen);

// "fp16" / "float16" -> kFloat16, "bf16" / "bfloat16" -> kBFloat16, "fp32" / "float32" / "float" -> kFloat.
bool parse_float_dtype(const std::string& s, ir::DataType* out);

}  // namespace onnxtrim::convert
