// The operator registry: each op file registers what it knows of one operator (section 6 of
// DESIGN.md "One op, one file"). Generic code (the interpreter, fold_constants, infer_shapes)
// asks the registry; it never switches on op names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/runtime_value.h"
#include "support/status.h"

namespace onnxtrim::ops {

using ir::RuntimeValue;

// Thrown by KernelContext::input for an input that is absent or not a tensor.
struct MissingInput {
  size_t index;
  explicit MissingInput(size_t i) : index(i) {}
};

// What a kernel sees: the node (attributes), the opset version the model imports for the
// node's domain, its inputs (nullptr where absent) and room for its outputs.
class KernelContext {
 public:
  using SubgraphRunner = std::function<Result<std::vector<RuntimeValue>>(const ir::Graph&, std::vector<RuntimeValue>)>;

  KernelContext(const ir::Node& node, int64_t opset, std::vector<const RuntimeValue*> inputs, SubgraphRunner runner)
      : node_(node),
        opset_(opset),
        inputs_(std::move(inputs)),
        outputs_(node.num_outputs()),
        runner_(std::move(runner)) {}

  const ir::Node& node() const { return node_; }
  int64_t opset() const { return opset_; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  const RuntimeValue* input_value(size_t i) const { return has_input(i) ? inputs_[i] : nullptr; }
  // Input i for the kernel to take (move from) when this node is its last reader, else nullptr
  // (then copy input_value). Sequence kernels in a Loop body stay linear this way.
  RuntimeValue* take_input_value(size_t i) const {
    return has_input(i) && i < takeable_.size() && takeable_[i] ? const_cast<RuntimeValue*>(inputs_[i]) : nullptr;
  }
  void set_takeable(std::vector<bool> t) { takeable_ = std::move(t); }
  // The tensor of input i. An input the node lacks, or one that holds a sequence or an
  // optional, throws MissingInput, which the interpreter reports as an invalid node: a kernel
  // that reads a required input need not check it first.
  const ir::Tensor& input(size_t i) const {
    if (!has_input(i) ||
        (inputs_[i]->kind != RuntimeValue::Kind::kTensor && inputs_[i]->kind != RuntimeValue::Kind::kMap))
      throw MissingInput(i);
    return inputs_[i]->tensor;
  }
  // True when output i is wanted (present in the node).
  bool wants_output(size_t i) const { return i < node_.num_outputs() && node_.output(i) != nullptr; }
  void set_output(size_t i, ir::Tensor t) {
    if (i < outputs_.size()) outputs_[i] = RuntimeValue::of(std::move(t));
  }
  void set_output_value(size_t i, RuntimeValue v) {
    if (i < outputs_.size()) outputs_[i] = std::move(v);
  }
  std::vector<RuntimeValue>& outputs() { return outputs_; }
  // Runs a graph attribute (If/Loop/Scan bodies) with the given inputs; outer-scope values
  // are visible to it.
  Result<std::vector<RuntimeValue>> run_subgraph(const ir::Graph& g, std::vector<RuntimeValue> in) const {
    return runner_(g, std::move(in));
  }
  // Speed over accuracy: float kernels may accumulate in float (as ONNX Runtime does) where
  // they otherwise accumulate in double (Conv). Off by default; `onnxtrim run --fast`.
  bool fast_float() const { return fast_float_; }
  void set_fast_float(bool on) { fast_float_ = on; }
  // An "invalid model" error naming this node.
  Status error(const std::string& detail) const {
    return Status(ErrorCode::kInvalidModel, detail).with_node(node_.describe());
  }
  Status unsupported(const std::string& detail) const {
    return Status(ErrorCode::kUnsupported, detail).with_node(node_.describe());
  }

 private:
  const ir::Node& node_;
  int64_t opset_;
  std::vector<const RuntimeValue*> inputs_;
  std::vector<bool> takeable_;  // the interpreter owns those values and nobody reads them later
  std::vector<RuntimeValue> outputs_;
  SubgraphRunner runner_;
  bool fast_float_ = false;
};

using EvalFn = Status (*)(KernelContext&);

class FoldContext;  // ops/fold.h
// A local fold (DESIGN.md section 5): rewrites one node without creating nodes (e.g. x+0 -> x,
// a Cast to the same type, Transpose∘Transpose). Returns true when it changed something.
using FoldFn = bool (*)(ir::Node&, FoldContext&);

// ---------------------------------------------------------------- cost
// An op's cost rule: the multiply-adds of one run of a node, from the static sizes of its
// values (the check's estimate, driver::estimate_macs, compared with --verify-budget). An op
// without a rule costs one per element of its first output; products and convolutions have one
// (ONNXTRIM_REGISTER_COST in their files).
class CostContext {
 public:
  // The static shape of a value, where every dim is known (nullopt otherwise).
  using Shapes = std::function<std::optional<std::vector<int64_t>>(const ir::Value*)>;
  explicit CostContext(Shapes shapes) : shapes_(std::move(shapes)) {}
  // The elements of v; 0 when v is absent or its size unknown.
  double numel(const ir::Value* v) const;
  // Dim `axis` of v (negative: from the end); 0 when absent, unknown or out of range.
  double dim(const ir::Value* v, int64_t axis) const;
  // A convolution weight's elements per slice of its dim 0 (one filter); 0 when unknown.
  double filter(const ir::Value* w) const;

 private:
  Shapes shapes_;
};
using CostFn = double (*)(const ir::Node&, const CostContext&);

struct OpSchema {
  std::string domain;  // "" for the default ONNX domain
  std::string op_type;
  // Opset versions in which the op (re)appeared, ascending, from Changelog.md. One schema
  // covers all of them; the kernel branches on ctx.opset() where the semantics differ.
  std::vector<int> versions;
  EvalFn eval = nullptr;
  bool deterministic = true;  // false: random ops, never folded
};

// Tables keyed by (domain, op_type) strings, looked up with string_views (no key is built for
// a lookup) in hash tables: the registry is asked for every node of every pass.
struct OpKeyHash {
  using is_transparent = void;
  template <class K>
  size_t operator()(const K& k) const {
    size_t a = std::hash<std::string_view>{}(std::string_view(k.first));
    size_t b = std::hash<std::string_view>{}(std::string_view(k.second));
    return a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  }
};
struct OpKeyEq {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::string_view(a.first) == std::string_view(b.first) &&
           std::string_view(a.second) == std::string_view(b.second);
  }
};
using OpKey = std::pair<std::string, std::string>;
using OpKeyView = std::pair<std::string_view, std::string_view>;
template <typename V>
using OpTable = std::unordered_map<OpKey, V, OpKeyHash, OpKeyEq>;

// What passes ask of an op beyond its schema, declared in the op's own file.
enum class OpProperty : unsigned {
  // One output, each of whose elements depends only on the elements at the same (broadcast)
  // position of the inputs.
  kElementwise = 1,
  // Every output element is a copy of one element of an input of the same type (Transpose,
  // Gather, Slice, Concat, ...; no arithmetic, no attribute-valued fill such as Pad-2's
  // `value`). Rounding such an op's float inputs to another float type and running it gives
  // exactly its output rounded, element by element: the float conversion (convert_float.cc)
  // measures such a node's error from its output alone, with no rounded copy of its inputs and
  // no second run.
  kCopiesElements = 2,
};

class OpRegistry {
 public:
  static OpRegistry& instance();
  void add(OpSchema s);
  // The schema of (domain, op_type) that applies at `opset`: nullptr when the op is unknown or
  // its first version is newer than the model's opset.
  const OpSchema* find(std::string_view domain, std::string_view op_type, int64_t opset) const;
  const OpSchema* find_any(std::string_view domain, std::string_view op_type) const;
  std::vector<const OpSchema*> all() const;

  // Folds are grouped by the pass that runs them (e.g. "eliminate_nop_ops").
  void add_fold(std::string domain, std::string op_type, std::string pass, FoldFn fn);
  std::vector<FoldFn> find_folds(std::string_view domain, std::string_view op_type, std::string_view pass) const;

  // Properties an op's own file declares (ONNXTRIM_REGISTER_ELEMENTWISE, ...), for passes.
  void declare(std::string domain, std::string op_type, OpProperty p);
  bool has(std::string_view domain, std::string_view op_type, OpProperty p) const;

  // Cost rules (ONNXTRIM_REGISTER_COST); cost() falls back to one per output element.
  void add_cost(std::string domain, std::string op_type, CostFn fn);
  double cost(const ir::Node& n, const CostContext& c) const;

 private:
  OpTable<OpSchema> ops_;
  OpTable<std::vector<std::pair<std::string, FoldFn>>> folds_;
  OpTable<unsigned> properties_;  // OpProperty bits
  OpTable<CostFn> costs_;
};

// Registers at static-initialisation time:
//   ONNXTRIM_REGISTER_OP(Relu, "", "Relu", {1, 6, 13, 14}, eval_relu)
#define ONNXTRIM_REGISTER_OP(id, domain, op_type, versions, fn)                         \
  static const bool onnxtrim_registered_##id = [] {                                     \
    ::onnxtrim::ops::OpRegistry::instance().add({domain, op_type, versions, fn, true}); \
    return true;                                                                        \
  }()
#define ONNXTRIM_REGISTER_RANDOM_OP(id, domain, op_type, versions, fn)                   \
  static const bool onnxtrim_registered_##id = [] {                                      \
    ::onnxtrim::ops::OpRegistry::instance().add({domain, op_type, versions, fn, false}); \
    return true;                                                                         \
  }()

// ONNXTRIM_REGISTER_PROPERTY(Relu, "", "Relu", kElementwise): see OpProperty.
#define ONNXTRIM_REGISTER_PROPERTY(id, domain, op_type, property)                                            \
  static const bool onnxtrim_##property##_registered_##id = [] {                                             \
    ::onnxtrim::ops::OpRegistry::instance().declare(domain, op_type, ::onnxtrim::ops::OpProperty::property); \
    return true;                                                                                             \
  }()
#define ONNXTRIM_REGISTER_ELEMENTWISE(id, domain, op_type) ONNXTRIM_REGISTER_PROPERTY(id, domain, op_type, kElementwise)
#define ONNXTRIM_REGISTER_COPIES_ELEMENTS(id, domain, op_type) \
  ONNXTRIM_REGISTER_PROPERTY(id, domain, op_type, kCopiesElements)

// ONNXTRIM_REGISTER_COST(MatMul, "", "MatMul", cost_matmul): see CostContext.
#define ONNXTRIM_REGISTER_COST(id, domain, op_type, fn)                    \
  static const bool onnxtrim_cost_registered_##id = [] {                   \
    ::onnxtrim::ops::OpRegistry::instance().add_cost(domain, op_type, fn); \
    return true;                                                           \
  }()

// ---------------------------------------------------------------- one op as one value
// Everything an op file's macros register, as one value: for a family file whose ops share
// their kernel and shape rule and differ by a function (src/ops/math/comparison.cc), so that a
// table of these, one row per op, is the family's registration (ONNXTRIM_REGISTER_OPS). Each
// field means what its macro's argument means; the ones a row leaves empty register nothing.
class InferContext;                         // ops/infer.h
using InferFn = Status (*)(InferContext&);  // as declared there
// Every field has an initializer, so that a row names only the fields it sets
// (designated initializers: {.op_type = "Less", .versions = {1, 7, 9, 13}, ...}).
struct OpRegistration {
  std::string op_type{};
  std::vector<int> versions{};  // ONNXTRIM_REGISTER_OP: from Changelog.md
  EvalFn eval = nullptr;
  InferFn infer = nullptr;                                // ONNXTRIM_REGISTER_INFER
  CostFn cost = nullptr;                                  // ONNXTRIM_REGISTER_COST
  std::string signature{};                                // ONNXTRIM_REGISTER_TYPES ("": none)
  std::vector<std::pair<std::string, uint64_t>> types{};  // its sets
  std::vector<OpProperty> properties{};                   // ONNXTRIM_REGISTER_ELEMENTWISE, ...
  std::vector<std::pair<std::string, FoldFn>> folds{};    // (pass, fold): ONNXTRIM_REGISTER_FOLD
  std::string domain{};                                   // "" for the default ONNX domain
  bool deterministic = true;                              // false: ONNXTRIM_REGISTER_RANDOM_OP
};
// Registers r as the macros would, in their order: the schema, the properties, the shape rule,
// the cost, the type constraints, the folds.
void register_op(const OpRegistration& r);

// ONNXTRIM_REGISTER_OPS(Comparisons, kComparisons): registers each row of an array (or any
// range) of OpRegistration at static-initialisation time, after the array is built (define the
// array above the macro, in the same file).
#define ONNXTRIM_REGISTER_OPS(id, table)                                                    \
  static const bool onnxtrim_ops_registered_##id = [] {                                     \
    for (const ::onnxtrim::ops::OpRegistration& r : table) ::onnxtrim::ops::register_op(r); \
    return true;                                                                            \
  }()

// ONNXTRIM_REGISTER_FOLD(CastNop, "", "Cast", "eliminate_nop_ops", fold_cast_nop)
#define ONNXTRIM_REGISTER_FOLD(id, domain, op_type, pass, fn)                    \
  static const bool onnxtrim_fold_registered_##id = [] {                         \
    ::onnxtrim::ops::OpRegistry::instance().add_fold(domain, op_type, pass, fn); \
    return true;                                                                 \
  }()

}  // namespace onnxtrim::ops
