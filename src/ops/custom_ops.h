// Custom-op schemas (docs/custom-ops.md): a JSON file describing the output types and shapes of
// ops no op file knows (a vendor's domain), or ONNX functions (a .onnx model's functions, or ONNX
// text holding only functions) whose bodies say what such an op computes: shape inference infers
// the body and the evaluator runs it for each call. Given with --custom-op-schema FILE. Loaded once per
// run and made visible to shape inference through a scope on the running thread, so two runs
// in one process (the Python module, concurrent C API calls) never see each other's schemas
// and nothing is left registered after a run.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ops/infer.h"
#include "support/status.h"

namespace onnxtrim::ops {

struct CustomOutputRule {
  // Element type: copied from input `type_input` (>= 0), else the fixed `type`.
  int type_input = -1;
  ir::DataType type = ir::DataType::kUndefined;
  enum class Shape { kUnknown, kSameAsInput, kBroadcast, kDims };
  Shape shape = Shape::kUnknown;
  int shape_input = -1;  // kSameAsInput
  // kDims: one entry per dim: a constant (value >= 0), a dim of an input (input >= 0, axis, may
  // be negative: counted from the end), or a named symbol.
  struct Dim {
    int64_t value = -1;
    int input = -1;
    int64_t axis = 0;
    std::string symbol;
  };
  std::vector<Dim> dims;
};

struct CustomOpRule {
  std::string domain;
  std::string op_type;
  int64_t since_version = 1;
  std::vector<CustomOutputRule> outputs;  // a JSON rule's outputs (empty for a function)
  std::string source;                     // "FILE entry N (domain::op)", for messages
  // A function-bodied op: the function (named op_type, of `domain`) in `functions`, the model
  // its file was read into (kept alive with the rule). Its body is the op's semantics.
  std::shared_ptr<const ir::Model> functions;
  const ir::Function* function = nullptr;
};

using CustomOpRules = std::vector<CustomOpRule>;

// Parses a schema file's text; `source` names it in errors (a usage error naming the file and
// the entry).
Result<CustomOpRules> parse_custom_op_schemas(std::string_view json, const std::string& source);
// The function-bodied ops of a model of functions (every function of `functions`, one op each:
// its domain and name); `source` names the file in errors (a usage error: a function of ONNX's
// own domains, a name given twice, a function without a body).
Result<CustomOpRules> function_custom_ops(std::shared_ptr<const ir::Model> functions, const std::string& source);
// Reads and parses FILE (an I/O error naming it when it cannot be read): a binary ONNX model
// whose functions describe ops (a name ending in .onnx), a JSON list (text starting with '['),
// or ONNX text holding only functions.
Result<CustomOpRules> load_custom_op_schemas(const std::string& path);

// Makes `rules` the custom ops of the running thread while the scope lives (scopes nest: the
// previous set comes back at the end). `rules` must outlive the scope.
class CustomOpScope {
 public:
  explicit CustomOpScope(const CustomOpRules* rules);
  ~CustomOpScope();
  CustomOpScope(const CustomOpScope&) = delete;
  CustomOpScope& operator=(const CustomOpScope&) = delete;

 private:
  const CustomOpRules* previous_;
};

// The rule of (domain, op_type) in the running thread's scope that applies at `opset`, or nullptr.
const CustomOpRule* find_custom_op(std::string_view domain, std::string_view op_type, int64_t opset);
// The running thread's schemas (nullptr outside any scope), to hand to another thread.
const CustomOpRules* current_custom_ops();
// The same as find_custom_op, in the given set (nullptr: none).
const CustomOpRule* find_custom_op_in(const CustomOpRules* rules, std::string_view domain, std::string_view op_type,
                                      int64_t opset);

// Fills in ctx's outputs from the rule. An input that the rule refers to but the node lacks,
// or dims that do not broadcast, are the node's errors.
Status infer_custom_op(InferContext& ctx, const CustomOpRule& rule);

}  // namespace onnxtrim::ops
