// A value at run time: a tensor, a sequence of values, an optional (empty or one value), or
// a map (keys tensor + values). The evaluator computes these; test data files hold them.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ir/tensor.h"
#include "ir/type.h"

namespace onnxtrim::ir {

struct RuntimeValue {
  enum class Kind { kNone, kTensor, kSequence, kOptional, kMap };
  Kind kind = Kind::kNone;
  Tensor tensor;                    // kTensor; kMap: the keys
  std::vector<RuntimeValue> elems;  // kSequence: elements; kOptional: zero or one; kMap: [values]
  Type elem_type;                   // element type of an empty sequence / optional, when known

  static RuntimeValue of(Tensor t) {
    RuntimeValue v;
    v.kind = Kind::kTensor;
    v.tensor = std::move(t);
    return v;
  }
  static RuntimeValue sequence(std::vector<RuntimeValue> e, Type elem_type = {}) {
    RuntimeValue v;
    v.kind = Kind::kSequence;
    v.elems = std::move(e);
    v.elem_type = std::move(elem_type);
    return v;
  }
  static RuntimeValue optional(std::optional<RuntimeValue> e, Type elem_type = {}) {
    RuntimeValue v;
    v.kind = Kind::kOptional;
    if (e) v.elems.push_back(std::move(*e));
    v.elem_type = std::move(elem_type);
    return v;
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_optional() const { return kind == Kind::kOptional; }
  bool has_element() const { return kind == Kind::kOptional && !elems.empty(); }
};

}  // namespace onnxtrim::ir
