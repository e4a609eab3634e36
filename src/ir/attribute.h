// Node attributes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "ir/type.h"

namespace onnxtrim::ir {

class Graph;

// Values equal AttributeProto.AttributeType.
enum class AttrType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

struct Attribute {
  std::string name;
  AttrType type = AttrType::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<Tensor> t;
  std::shared_ptr<Graph> g;  // owned; shared_ptr only so that attributes stay copyable by move
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::string ref_attr_name;  // inside functions: refers to the caller's attribute
  std::string doc_string;
  std::string extra;      // serialized fields not interpreted (sparse tensors, type protos, unknown)
  uint32_t presence = 0;  // optional proto fields present in the file (onnx_io only)

  // An attribute of this name and type, its value still to be set.
  static Attribute named(std::string n, AttrType type) {
    Attribute a;
    a.name = std::move(n);
    a.type = type;
    return a;
  }
  static Attribute make_int(std::string n, int64_t v) {
    Attribute a = named(std::move(n), AttrType::kInt);
    a.i = v;
    return a;
  }
  static Attribute make_float(std::string n, float v) {
    Attribute a = named(std::move(n), AttrType::kFloat);
    a.f = v;
    return a;
  }
  static Attribute make_ints(std::string n, std::vector<int64_t> v) {
    Attribute a = named(std::move(n), AttrType::kInts);
    a.ints = std::move(v);
    return a;
  }
  static Attribute make_string(std::string n, std::string v) {
    Attribute a = named(std::move(n), AttrType::kString);
    a.s = std::move(v);
    return a;
  }
  static Attribute make_tensor(std::string n, Tensor v) {
    Attribute a = named(std::move(n), AttrType::kTensor);
    a.t = std::make_shared<Tensor>(std::move(v));
    return a;
  }
};

}  // namespace onnxtrim::ir

namespace onnxtrim::ir {
// Same name, type and value (floats bitwise; tensors by contents; graphs never equal).
bool attributes_equal(const Attribute& a, const Attribute& b);
// A copy of every field but the subgraphs (g and graphs stay empty): the caller copies those
// into the graph that owns the new node.
Attribute copy_attribute_shallow(const Attribute& a);
uint64_t hash_attribute(const Attribute& a);
uint64_t hash_tensor(const Tensor& t);
}  // namespace onnxtrim::ir
