// Shape and type inference with value propagation (DESIGN.md sections 2 and 3).
//
// Each op file registers a rule: given what is known of the inputs (element type, a shape of
// symbolic dims, and for small integer tensors their elements as symbolic dims), it fills in
// what it can of the outputs. Unknown is never an error; only a real spec violation is.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/registry.h"
#include "symbolic/expr.h"
#include "support/status.h"

namespace onnxtrim::ops {

using symbolic::Expr;
using SymShape = std::vector<Expr>;

// What inference knows of one value.
struct TypeInfo {
  ir::Type::Kind kind = ir::Type::Kind::kUnknown;
  ir::DataType elem = ir::DataType::kUndefined;
  std::optional<SymShape> shape;    // nullopt: rank unknown
  std::shared_ptr<TypeInfo> inner;  // element of a sequence / optional
  // Value propagation: the elements (row-major) of an integer tensor with at most
  // kMaxPropagated elements, as symbolic dims (e.g. Shape(x) = [batch, seq, 768]). The op
  // rules compute them for rank <= 1; a constant, or a node evaluated because its inputs are
  // known constants, gives them at any rank (then every element is a constant).
  std::optional<std::vector<Expr>> values;

  static TypeInfo tensor(ir::DataType t, std::optional<SymShape> s) {
    TypeInfo i;
    i.kind = ir::Type::Kind::kTensor;
    i.elem = t;
    i.shape = std::move(s);
    return i;
  }
  bool is_tensor() const { return kind == ir::Type::Kind::kTensor; }
  bool has_rank() const { return shape.has_value(); }
  int64_t rank() const { return shape ? static_cast<int64_t>(shape->size()) : -1; }
  // Every dim a known constant.
  std::optional<std::vector<int64_t>> static_shape() const;
  // Every propagated element a known constant.
  std::optional<std::vector<int64_t>> static_values() const;
};

constexpr size_t kMaxPropagated = 64;

// The elements of a constant tensor as propagated values: an integer (or bool) tensor of any
// rank with at most kMaxPropagated elements, else nothing.
std::optional<std::vector<Expr>> constant_values(const ir::Tensor& t);

class InferContext {
 public:
  virtual ~InferContext() = default;
  virtual const ir::Node& node() const = 0;
  virtual int64_t opset() const = 0;
  size_t num_inputs() const { return node().num_inputs(); }
  size_t num_outputs() const { return node().num_outputs(); }
  bool has_input(size_t i) const { return node().input(i) != nullptr; }
  bool has_output(size_t i) const { return node().output(i) != nullptr; }
  // What is known of input i (an unknown TypeInfo when absent).
  virtual const TypeInfo& input(size_t i) const = 0;
  // Constant contents of input i (initializer or Constant node), or nullptr.
  virtual const ir::Tensor* input_constant(size_t i) const = 0;
  // Integer elements of input i when all are known constants (from a constant or propagation).
  std::optional<std::vector<int64_t>> input_ints(size_t i) const;
  // Symbolic elements of input i when propagation knows them.
  const std::optional<std::vector<Expr>>& input_values(size_t i) const { return input(i).values; }
  // The output's facts, to fill in.
  virtual TypeInfo& output(size_t i) = 0;
  Expr fresh() const { return Expr::fresh(); }
  // Infers a subgraph (If/Loop/Scan body) given what is known of its inputs; returns its outputs.
  virtual Result<std::vector<TypeInfo>> infer_subgraph(const ir::Graph& g, std::vector<TypeInfo> inputs) = 0;
  Status error(const std::string& detail) const {
    return Status(ErrorCode::kInvalidModel, detail).with_node(node().describe());
  }
};

using InferFn = Status (*)(InferContext&);

void register_infer(std::string domain, std::string op_type, InferFn fn);
InferFn find_infer(std::string_view domain, std::string_view op_type);

// ONNXTRIM_REGISTER_INFER(Relu, "", "Relu", infer_relu)
#define ONNXTRIM_REGISTER_INFER(id, domain, op_type, fn)  \
  static const bool onnxtrim_infer_registered_##id = [] { \
    ::onnxtrim::ops::register_infer(domain, op_type, fn); \
    return true;                                          \
  }()

// ---------------------------------------------------------------- type constraints
// The element types an op's inputs may take (section 2 of an op file), as the union over the
// op's versions in Changelog.md (older opsets allow fewer types; the union never rejects a
// type some version allows). `signature` names each input's type variable by position: "-"
// for an input left unchecked, "..." after the last name when it repeats for variadic inputs.
// `sets` gives each variable's types. Inputs that share a variable must have one element type.
// Checked by shape inference before the op's rule, wherever an input's element type is known.
constexpr uint64_t type_bit(ir::DataType t) { return uint64_t{1} << static_cast<int>(t); }
constexpr uint64_t type_bits(std::initializer_list<ir::DataType> ts) {
  uint64_t m = 0;
  for (ir::DataType t : ts) m |= type_bit(t);
  return m;
}
inline constexpr uint64_t kFloatTypes =
    type_bits({ir::DataType::kFloat16, ir::DataType::kFloat, ir::DataType::kDouble, ir::DataType::kBFloat16});
inline constexpr uint64_t kSignedTypes =
    type_bits({ir::DataType::kInt8, ir::DataType::kInt16, ir::DataType::kInt32, ir::DataType::kInt64});
inline constexpr uint64_t kUnsignedTypes =
    type_bits({ir::DataType::kUint8, ir::DataType::kUint16, ir::DataType::kUint32, ir::DataType::kUint64});
inline constexpr uint64_t kIntTypes = kSignedTypes | kUnsignedTypes;
inline constexpr uint64_t kNumericTypes = kFloatTypes | kIntTypes;
inline constexpr uint64_t kFloat8Types = type_bits({ir::DataType::kFloat8E4M3FN, ir::DataType::kFloat8E4M3FNUZ,
                                                    ir::DataType::kFloat8E5M2, ir::DataType::kFloat8E5M2FNUZ});
inline constexpr uint64_t kComplexTypes = type_bits({ir::DataType::kComplex64, ir::DataType::kComplex128});
// The spec's "all tensor types" of the data-movement, sequence and optional ops: every numeric,
// complex, bool and string type (no float8, no 4-bit types); and the same list as the ops that
// never took bfloat16 give it.
inline constexpr uint64_t kAllTensorTypes =
    kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString});
inline constexpr uint64_t kAllTensorTypesButBFloat16 = kAllTensorTypes & ~type_bit(ir::DataType::kBFloat16);
inline constexpr uint64_t kAnyType = ~uint64_t{0};

struct TypeConstraints {
  std::vector<std::string> vars;  // per input position; "" for unchecked
  bool variadic = false;          // the last variable repeats
  std::map<std::string, uint64_t> sets;
};

void register_types(std::string domain, std::string op_type, const std::string& signature,
                    std::vector<std::pair<std::string, uint64_t>> sets);
const TypeConstraints* find_types(std::string_view domain, std::string_view op_type);
// The node's inputs against its op's constraints: an invalid-model error naming the input.
Status check_types(const InferContext& ctx);

// ONNXTRIM_REGISTER_TYPES(Add, "", "Add", "T T", {{"T", kNumericTypes}})
#define ONNXTRIM_REGISTER_TYPES(id, domain, op_type, signature, ...)          \
  static const bool onnxtrim_types_registered_##id = [] {                     \
    ::onnxtrim::ops::register_types(domain, op_type, signature, __VA_ARGS__); \
    return true;                                                              \
  }()

// ---------------------------------------------------------------- helpers for rules

// Output i gets input j's type and shape (elementwise unary ops).
void propagate_same(InferContext& ctx, size_t out = 0, size_t in = 0);
// The shape rule of an op whose output 0 has input 0's type and shape (elementwise unary ops,
// the normalizations, Trilu, the scatters, the cumulative and softmax families).
Status infer_same(InferContext& ctx);
// Multidirectional broadcasting of symbolic shapes; nullopt when a rank is unknown.
// Known, different, non-1 constant dims are a spec violation: *error is set.
std::optional<SymShape> broadcast(const std::vector<const SymShape*>& shapes, bool* error);
// Elementwise op over all inputs with broadcasting; output element type `elem` (or input 0's
// when kUndefined).
Status infer_broadcast(InferContext& ctx, ir::DataType elem = ir::DataType::kUndefined);
// A dim from a constant or symbolic expression.
inline Expr dim(int64_t v) { return Expr::constant(v); }
// Product of dims.
Expr product(const SymShape& s, size_t from = 0, size_t to = SIZE_MAX);

}  // namespace onnxtrim::ops
