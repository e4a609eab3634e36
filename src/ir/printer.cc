#include "ir/printer.h"

#include <cstring>
#include <iomanip>
#include <sstream>

namespace onnxtrim::ir {

namespace {

template <typename T>
void put_elems(std::ostringstream& os, const Tensor& t, int64_t n) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (i) os << ", ";
    if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) os << static_cast<int>(p[i]);
    else os << p[i];
  }
}

void print_attr_value(std::ostringstream& os, const Attribute& a, int indent, const PrintOptions& opts);

void print_graph_body(std::ostringstream& os, const Graph& g, int indent, const PrintOptions& opts) {
  std::string pad(static_cast<size_t>(indent), ' ');
  auto typed = [&](const Value* v) {
    std::string s;
    if (opts.show_types && v->type.is_known()) s = v->type.str() + " ";
    return s + v->name();
  };
  os << pad << (g.name.empty() ? "graph" : g.name) << " (";
  for (size_t i = 0; i < g.inputs().size(); ++i) os << (i ? ", " : "") << typed(g.inputs()[i]);
  os << ") => (";
  for (size_t i = 0; i < g.outputs().size(); ++i) os << (i ? ", " : "") << typed(g.outputs()[i]);
  os << ")\n";
  if (!g.initializers().empty()) {
    os << pad << "<";
    for (size_t i = 0; i < g.initializers().size(); ++i) {
      const Value* v = g.initializers()[i];
      const Tensor& t = *v->initializer();
      os << (i ? ", " : "") << dtype_name(t.dtype()) << "[";
      for (size_t d = 0; d < t.dims().size(); ++d) os << (d ? "," : "") << t.dims()[d];
      os << "] " << v->name() << " = " << print_tensor_values(t, opts.max_elements);
    }
    os << ">\n";
  }
  os << pad << "{\n";
  g.for_each_node([&](Node* n) {
    os << pad << "  ";
    for (size_t i = 0; i < n->outputs().size(); ++i)
      os << (i ? ", " : "") << (n->outputs()[i] ? n->outputs()[i]->name() : "");
    os << " = " << (n->domain.empty() ? "" : n->domain + ".") << n->op_type;
    if (!n->attributes.empty()) {
      os << " <";
      for (size_t i = 0; i < n->attributes.size(); ++i) {
        os << (i ? ", " : "") << n->attributes[i].name << " = ";
        print_attr_value(os, n->attributes[i], indent + 4, opts);
      }
      os << ">";
    }
    os << " (";
    for (size_t i = 0; i < n->inputs().size(); ++i)
      os << (i ? ", " : "") << (n->inputs()[i] ? n->inputs()[i]->name() : "");
    os << ")\n";
  });
  os << pad << "}";
}

void print_attr_value(std::ostringstream& os, const Attribute& a, int indent, const PrintOptions& opts) {
  auto list = [&](const auto& v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
  };
  if (!a.ref_attr_name.empty()) {
    os << "@" << a.ref_attr_name;
    return;
  }
  switch (a.type) {
    case AttrType::kFloat: os << a.f; break;
    case AttrType::kInt: os << a.i; break;
    case AttrType::kString: os << '"' << a.s << '"'; break;
    case AttrType::kFloats: list(a.floats); break;
    case AttrType::kInts: list(a.ints); break;
    case AttrType::kStrings: {
      os << "[";
      for (size_t i = 0; i < a.strings.size(); ++i) os << (i ? ", " : "") << '"' << a.strings[i] << '"';
      os << "]";
      break;
    }
    case AttrType::kTensor:
      if (a.t) {
        os << dtype_name(a.t->dtype()) << "[";
        for (size_t d = 0; d < a.t->dims().size(); ++d) os << (d ? "," : "") << a.t->dims()[d];
        os << "] " << print_tensor_values(*a.t, opts.max_elements);
      }
      break;
    case AttrType::kGraph:
      if (a.g) {
        os << "\n";
        print_graph_body(os, *a.g, indent, opts);
      }
      break;
    case AttrType::kGraphs:
      for (const auto& g : a.graphs) {
        os << "\n";
        print_graph_body(os, *g, indent, opts);
      }
      break;
    case AttrType::kTensors: os << "<" << a.tensors.size() << " tensors>"; break;
    default: os << "<opaque>"; break;
  }
}

}  // namespace

std::string print_tensor_values(const Tensor& t, int max_elements) {
  std::ostringstream os;
  os << std::setprecision(9);
  int64_t n = t.numel();
  int64_t shown = std::min<int64_t>(n, max_elements);
  os << "{";
  if (t.dtype() == DataType::kString) {
    for (int64_t i = 0; i < shown; ++i) os << (i ? ", " : "") << '"' << t.strings()[static_cast<size_t>(i)] << '"';
  } else if (t.bytes() == nullptr && n > 0) {
    os << "<no data>";
    shown = n;
  } else {
    switch (t.dtype()) {
      case DataType::kFloat: put_elems<float>(os, t, shown); break;
      case DataType::kDouble: put_elems<double>(os, t, shown); break;
      case DataType::kInt64: put_elems<int64_t>(os, t, shown); break;
      case DataType::kInt32: put_elems<int32_t>(os, t, shown); break;
      case DataType::kInt16: put_elems<int16_t>(os, t, shown); break;
      case DataType::kInt8: put_elems<int8_t>(os, t, shown); break;
      case DataType::kUint64: put_elems<uint64_t>(os, t, shown); break;
      case DataType::kUint32: put_elems<uint32_t>(os, t, shown); break;
      case DataType::kUint16: put_elems<uint16_t>(os, t, shown); break;
      case DataType::kUint8: put_elems<uint8_t>(os, t, shown); break;
      case DataType::kBool: put_elems<uint8_t>(os, t, shown); break;
      default:
        os << "<" << t.byte_size() << " bytes>";
        shown = n;
        break;
    }
  }
  if (shown < n) os << ", ... (" << n << " elements)";
  os << "}";
  return os.str();
}

std::string print_graph(const Graph& g, const PrintOptions& opts) {
  std::ostringstream os;
  print_graph_body(os, g, 0, opts);
  os << "\n";
  return os.str();
}

std::string print_model(const Model& m, const PrintOptions& opts) {
  std::ostringstream os;
  os << "<ir_version: " << m.ir_version << ", opset_import: [";
  for (size_t i = 0; i < m.opset_import.size(); ++i)
    os << (i ? ", " : "") << '"' << m.opset_import[i].domain << "\" : " << m.opset_import[i].version;
  os << "]>\n";
  return os.str() + print_graph(*m.graph, opts);
}

}  // namespace onnxtrim::ir
