#include "ir/attribute.h"

#include <cstring>

#include "support/hash.h"

namespace onnxtrim::ir {

namespace {
bool floats_equal(const std::vector<float>& a, const std::vector<float>& b) {
  // Bitwise: NaN attributes compare equal to themselves, -0 differs from +0.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
uint64_t tensor_hash(const Tensor& t) {
  uint64_t h = static_cast<uint64_t>(t.dtype());
  for (int64_t d : t.dims()) h = hash_combine(h, static_cast<uint64_t>(d));
  if (t.dtype() == DataType::kString) {
    for (const auto& s : t.strings()) h = hash_str(s, h);
  } else if (t.unaligned_bytes()) {
    h = fnv1a(t.unaligned_bytes(), t.byte_size(), h);
  }
  return h;
}
}  // namespace

uint64_t hash_tensor(const Tensor& t) { return tensor_hash(t); }

Attribute copy_attribute_shallow(const Attribute& a) {
  Attribute c = a;
  c.g.reset();
  c.graphs.clear();
  return c;
}

bool attributes_equal(const Attribute& a, const Attribute& b) {
  if (a.name != b.name || a.type != b.type || a.ref_attr_name != b.ref_attr_name) return false;
  switch (a.type) {
    case AttrType::kFloat: return std::memcmp(&a.f, &b.f, sizeof(float)) == 0;
    case AttrType::kInt: return a.i == b.i;
    case AttrType::kString: return a.s == b.s;
    case AttrType::kFloats: return floats_equal(a.floats, b.floats);
    case AttrType::kInts: return a.ints == b.ints;
    case AttrType::kStrings: return a.strings == b.strings;
    case AttrType::kTensor: return a.t && b.t && a.t->same_contents(*b.t);
    case AttrType::kTensors: {
      if (a.tensors.size() != b.tensors.size()) return false;
      for (size_t i = 0; i < a.tensors.size(); ++i)
        if (!a.tensors[i].same_contents(b.tensors[i])) return false;
      return true;
    }
    case AttrType::kGraph:
    case AttrType::kGraphs: return false;  // graphs are never considered equal (no structural comparison)
    default: return a.extra == b.extra;
  }
}

uint64_t hash_attribute(const Attribute& a) {
  uint64_t h = hash_str(a.name);
  h = hash_combine(h, static_cast<uint64_t>(a.type));
  switch (a.type) {
    case AttrType::kFloat: h = fnv1a(&a.f, sizeof(float), h); break;
    case AttrType::kInt: h = hash_combine(h, static_cast<uint64_t>(a.i)); break;
    case AttrType::kString: h = hash_str(a.s, h); break;
    case AttrType::kFloats: h = fnv1a(a.floats.data(), a.floats.size() * sizeof(float), h); break;
    case AttrType::kInts: h = fnv1a(a.ints.data(), a.ints.size() * sizeof(int64_t), h); break;
    case AttrType::kStrings:
      for (const auto& s : a.strings) h = hash_str(s, h);
      break;
    case AttrType::kTensor:
      if (a.t) h = hash_combine(h, tensor_hash(*a.t));
      break;
    case AttrType::kTensors:
      for (const auto& t : a.tensors) h = hash_combine(h, tensor_hash(t));
      break;
    default: break;
  }
  return h;
}

}  // namespace onnxtrim::ir
