// Custom-op schemas (docs/custom-ops.md): a JSON file describing the output types and shapes of
// ops no op file knows (a vendor's domain), given with --custom-op-schema FILE. Loaded once per
// run and made visible to shape inference through a scope on the running thread, so two runs
// in one process (the Python module, concurrent C API calls) never see each other's schemas
// and nothing is left registered after a run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
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
  std::vector<CustomOutputRule> outputs;
  std::string source;  // "FILE entry N (domain::op)", for messages
};

using CustomOpRules = std::vector<CustomOpRule>;

// Parses a schema file's text; `source` names it in errors (a usage error naming the file and
// the entry).
Result<CustomOpRules> parse_custom_op_schemas(std::string_view json, const std::string& source);
// Reads and parses FILE (an I/O error naming it when it cannot be read).
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

// Fills in ctx's outputs from the rule. An input that the rule refers to but the node lacks,
// or dims that do not broadcast, are the node's errors.
Status infer_custom_op(InferContext& ctx, const CustomOpRule& rule);

}  // namespace onnxtrim::ops
