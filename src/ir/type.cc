#include "ir/type.h"

namespace onnxtrim::ir {

std::string Type::str() const {
  switch (kind) {
    case Kind::kUnknown: return "?";
    case Kind::kTensor:
    case Kind::kSparseTensor: {
      std::string s = kind == Kind::kSparseTensor ? "sparse_tensor(" : "";
      s += std::string(dtype_name(elem));
      if (has_shape) {
        s += "[";
        for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + dims[i].str();
        s += "]";
      }
      if (kind == Kind::kSparseTensor) s += ")";
      return s;
    }
    case Kind::kSequence: return "seq(" + (inner ? inner->str() : std::string("?")) + ")";
    case Kind::kOptional: return "optional(" + (inner ? inner->str() : std::string("?")) + ")";
    case Kind::kMap:
      return "map(" + std::string(dtype_name(elem)) + ", " + (inner ? inner->str() : std::string("?")) + ")";
    case Kind::kOpaque: return "opaque";
  }
  return "?";
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind || elem != o.elem || has_shape != o.has_shape || dims != o.dims) return false;
  if (static_cast<bool>(inner) != static_cast<bool>(o.inner)) return false;
  return !inner || *inner == *o.inner;
}

}  // namespace onnxtrim::ir
