// Types of values: tensors with shapes of concrete or named dims, sequences, optionals, maps.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace onnxtrim::ir {

// One dimension: a known size, a named symbol (dim_param) or unknown (neither).
struct Dim {
  std::optional<int64_t> value;
  std::string param;
  std::string denotation;
  bool denotation_present = false;

  static Dim known(int64_t v) { return Dim{v, {}, {}}; }
  static Dim symbol(std::string p) { return Dim{std::nullopt, std::move(p), {}}; }
  bool is_known() const { return value.has_value(); }
  bool is_symbol() const { return !value && !param.empty(); }
  bool operator==(const Dim& o) const { return value == o.value && param == o.param; }
  std::string str() const { return value ? std::to_string(*value) : (param.empty() ? "?" : param); }
};

struct Type {
  enum class Kind { kUnknown, kTensor, kSparseTensor, kSequence, kOptional, kMap, kOpaque };
  Kind kind = Kind::kUnknown;
  DataType elem = DataType::kUndefined;  // tensor/sparse elem, or map key type
  bool has_shape = false;                // false: rank unknown
  std::vector<Dim> dims;
  std::shared_ptr<Type> inner;  // sequence/optional element, map value
  std::string denotation;
  std::string extra;      // serialized TypeProto fields not interpreted (opaque...)
  uint32_t presence = 0;  // optional proto fields present in the file (onnx_io only)

  static Type tensor(DataType t, std::vector<Dim> dims) {
    Type ty;
    ty.kind = Kind::kTensor;
    ty.elem = t;
    ty.has_shape = true;
    ty.dims = std::move(dims);
    return ty;
  }
  static Type tensor_unranked(DataType t) {
    Type ty;
    ty.kind = Kind::kTensor;
    ty.elem = t;
    return ty;
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_known() const { return kind != Kind::kUnknown; }
  int64_t rank() const { return has_shape ? static_cast<int64_t>(dims.size()) : -1; }
  bool is_static() const {
    if (!has_shape) return false;
    for (const auto& d : dims)
      if (!d.is_known()) return false;
    return true;
  }
  std::optional<std::vector<int64_t>> static_dims() const {
    if (!is_static()) return std::nullopt;
    std::vector<int64_t> out;
    for (const auto& d : dims) out.push_back(*d.value);
    return out;
  }
  // ONNX text syntax: float[N,3], seq(float[2]), optional(int64), map(string, float)
  std::string str() const;
  bool operator==(const Type& o) const;
};

}  // namespace onnxtrim::ir
