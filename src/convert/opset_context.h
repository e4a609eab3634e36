// What a version step of one node sees (convert/opset.cc drives, the step files use it): the
// model's facts before conversion, constants, and the helpers that build new nodes. A node
// made by a step is written for one opset version (`at`) and is itself converted from there
// to the target afterwards.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/opset_schema.h"
#include "ir/graph.h"
#include "ir/rewriter.h"
#include "passes/shape_inference.h"

namespace onnxtrim::convert {

class StepContext {
 public:
  StepContext(ir::Model& m, ir::Rewriter& rw, const passes::ShapeInference* si, int64_t from, int64_t to)
      : model_(m), rw_(rw), si_(si), from_(from), to_(to) {}

  ir::Rewriter& rw() { return rw_; }
  int64_t from() const { return from_; }
  int64_t to() const { return to_; }

  // The constant tensor behind v: an initializer that is not a graph input, or the value of a
  // Constant node (in v's graph or an enclosing one); nullptr otherwise.
  const ir::Tensor* constant(const ir::Value* v) const;
  // Integer elements of v when all are known: a constant, or what shape inference propagated.
  std::optional<std::vector<int64_t>> ints(const ir::Value* v) const;
  // Float elements of a constant v (any float or integer type).
  std::optional<std::vector<double>> floats(const ir::Value* v) const;
  // Rank of v (-1 unknown), its element type (kUndefined unknown), its static dims.
  int64_t rank(const ir::Value* v) const;
  ir::DataType dtype(const ir::Value* v) const;
  std::optional<std::vector<int64_t>> static_shape(const ir::Value* v) const;
  // Dim `axis` of v when known.
  std::optional<int64_t> dim(const ir::Value* v, int64_t axis) const;

  // A constant value usable by nodes of g (an initializer, or a Constant node inside a
  // function body, where initializers do not exist), placed before `before`.
  ir::Value* make_const(ir::Graph& g, ir::Node* before, ir::Tensor t, std::string_view hint);
  ir::Value* const_i64(ir::Graph& g, ir::Node* before, const std::vector<int64_t>& v, std::string_view hint,
                       bool scalar = false);
  // A scalar (or 1-D when `dims` given) of element type t holding `v`.
  ir::Value* const_of(ir::Graph& g, ir::Node* before, ir::DataType t, const std::vector<double>& v,
                      std::string_view hint, std::vector<int64_t> dims = {});
  // A new default-domain node before `before`, written for opset version `at`; it is converted
  // to the target like the model's own nodes.
  ir::Node* insert(ir::Node* before, std::string op, const std::vector<ir::Value*>& inputs, size_t num_outputs,
                   int64_t at, std::vector<ir::Attribute> attrs = {});
  // Nodes made by steps, with the version they were written for (the driver drains this).
  std::vector<std::pair<ir::Node*, int64_t>>& made() { return made_; }

  // "--opset 13: node 'x' (Op): detail" as an unsupported-kind error.
  Status refuse(const ir::Node& n, const std::string& detail) const;

 private:
  ir::Model& model_;
  ir::Rewriter& rw_;
  const passes::ShapeInference* si_;
  int64_t from_, to_;
  std::vector<std::pair<ir::Node*, int64_t>> made_;
};

// A step: converts node n across the version boundary `version` of its op (up: from the
// version before it to this one; down: the reverse). The node keeps its identity; it may gain
// neighbours (made through ctx.insert) or change its op type (Upsample -> Resize).
using StepFn = Status (*)(StepContext& ctx, ir::Node& n, bool up);
// An expansion: replaces n (whose op has no version at the target) by nodes written for the
// op's first opset; returns the nodes' outputs wired in place of n's, or refuses.
using ExpandFn = Status (*)(StepContext& ctx, ir::Node& n);

void register_step(const char* op, int version, StepFn fn);
StepFn find_step(std::string_view op, int version);
void register_expansion(const char* op, ExpandFn fn);
ExpandFn find_expansion(std::string_view op);
std::vector<std::string> expandable_ops();
std::vector<std::pair<std::string, int>> registered_steps();

// Static registration: OPSET_STEP(squeeze13, "Squeeze", 13, step_axes_input);
#define ONNXTRIM_OPSET_STEP(id, op, version, fn)         \
  static const bool onnxtrim_opset_step_##id = [] {      \
    ::onnxtrim::convert::register_step(op, version, fn); \
    return true;                                         \
  }()
#define ONNXTRIM_OPSET_EXPANSION(id, op, fn)             \
  static const bool onnxtrim_opset_expansion_##id = [] { \
    ::onnxtrim::convert::register_expansion(op, fn);     \
    return true;                                         \
  }()

// Helpers shared by the step files.
// Reads attribute `name` as ints; nullopt when absent. A reference to a caller's attribute
// (inside a function) cannot be moved: *ref is set.
std::optional<std::vector<int64_t>> attr_ints(const ir::Node& n, std::string_view name, bool* ref = nullptr);
bool attr_is_ref(const ir::Node& n, std::string_view name);
// A step whose version brought string attribute `name`'s value `value` (its default `dflt`):
// going down, a node with that value is refused ("mode 'wrap' exists from Pad-19 only").
Status refuse_value_before(StepContext& ctx, const ir::Node& n, bool up, const std::string& name,
                           const std::string& dflt, const std::string& value, int version);
// Replaces every use of `from` (its graph-output role included) by `to`, which n's graph made.
void redirect(StepContext& ctx, ir::Value* from, ir::Value* to);

}  // namespace onnxtrim::convert
