// --graph-diff (report.h diff_graphs): nodes, values, initializers and the interface of the main
// graph, the original against the result.
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "driver/report.h"

namespace onnxtrim {
namespace {

std::string graph_diff_op(const ir::Node& n) { return n.is_default_domain() ? n.op_type : n.domain + "." + n.op_type; }

// "op|in1,in2": the key of a node matched by what it computes.
std::string graph_diff_key(const ir::Node& n) {
  std::string k = graph_diff_op(n) + "|";
  for (const ir::Value* v : n.inputs()) k += (v ? v->name() : std::string()) + ",";
  return k;
}

// What differs between a kept node `a` of the original and its match `b` ("" when nothing
// compared does): input names, non-graph attributes, output names.
std::string graph_diff_edit(const ir::Node& a, const ir::Node& b) {
  auto names = [](const std::vector<ir::Value*>& vs) {
    std::vector<std::string> out;
    for (const ir::Value* v : vs) out.push_back(v ? v->name() : std::string());
    return out;
  };
  std::string what;
  if (names(a.inputs()) != names(b.inputs())) what = "inputs";
  std::set<std::string> attrs;
  auto graphish = [](const ir::Attribute& x) {
    return x.type == ir::AttrType::kGraph || x.type == ir::AttrType::kGraphs;
  };
  for (const ir::Attribute& x : a.attributes) {
    if (graphish(x)) continue;
    const ir::Attribute* y = b.attr(x.name);
    if (!y || !ir::attributes_equal(x, *y)) attrs.insert(x.name);
  }
  for (const ir::Attribute& y : b.attributes)
    if (!graphish(y) && !a.attr(y.name)) attrs.insert(y.name);
  if (!attrs.empty()) {
    what += std::string(what.empty() ? "" : "; ") + "attributes";
    for (const std::string& n : attrs) what += " " + n;
  }
  if (names(a.outputs()) != names(b.outputs())) what += std::string(what.empty() ? "" : "; ") + "outputs";
  return what;
}

GraphDiff::NodeRef graph_diff_ref(const ir::Node& n) {
  GraphDiff::NodeRef r{n.name, graph_diff_op(n), {}};
  for (const ir::Value* o : n.outputs())
    if (o) r.outputs.push_back(o->name());
  return r;
}

std::string graph_diff_type(const ir::Value& v) { return v.type.is_known() ? v.type.str() : "?"; }

bool graph_diff_same_tensor(const ir::Tensor& a, const ir::Tensor& b) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims()) return false;
  if (a.deferred() || b.deferred()) return true;  // type and shape only (see GraphDiff)
  if (a.dtype() == ir::DataType::kString) return a.strings() == b.strings();
  if (a.byte_size() != b.byte_size()) return false;
  if (a.bytes() == b.bytes() || a.byte_size() == 0) return true;
  return std::memcmp(a.unaligned_bytes(), b.unaligned_bytes(), a.byte_size()) == 0;
}

int64_t graph_diff_bytes(const ir::Value& v) { return static_cast<int64_t>(v.initializer()->byte_size()); }

// Interface changes of one side ("inputs" or "outputs"), by name, in order.
std::vector<std::string> graph_diff_interface(const std::vector<ir::Value*>& a, const std::vector<ir::Value*>& b) {
  std::vector<std::string> out;
  std::map<std::string, const ir::Value*> bn;
  for (const ir::Value* v : b) bn[v->name()] = v;
  std::set<std::string> an;
  for (const ir::Value* v : a) {
    an.insert(v->name());
    auto it = bn.find(v->name());
    if (it == bn.end()) out.push_back("removed " + v->name());
    else if (graph_diff_type(*v) != graph_diff_type(*it->second))
      out.push_back(v->name() + ": " + graph_diff_type(*v) + " -> " + graph_diff_type(*it->second));
  }
  for (const ir::Value* v : b)
    if (!an.count(v->name())) out.push_back("added " + v->name());
  return out;
}

}  // namespace

GraphDiff diff_graphs(const ir::Model& before, const ir::Model& after) {
  GraphDiff d;
  d.ran = true;
  const ir::Graph& a = *before.graph;
  const ir::Graph& b = *after.graph;
  // Nodes: by name first (same name and op), then by op and input names.
  std::vector<const ir::Node*> an, bn;
  a.for_each_node([&](const ir::Node* n) { an.push_back(n); });
  b.for_each_node([&](const ir::Node* n) { bn.push_back(n); });
  std::unordered_map<std::string, const ir::Node*> b_by_name;
  for (const ir::Node* n : bn)
    if (!n->name.empty()) b_by_name.emplace(n->name, n);
  std::unordered_set<const ir::Node*> matched_b;
  std::vector<const ir::Node*> a_left;
  for (const ir::Node* n : an) {
    auto it = n->name.empty() ? b_by_name.end() : b_by_name.find(n->name);
    if (it != b_by_name.end() && graph_diff_op(*it->second) == graph_diff_op(*n) && !matched_b.count(it->second)) {
      matched_b.insert(it->second);
      ++d.kept;
      std::string what = graph_diff_edit(*n, *it->second);
      if (!what.empty()) d.changed.push_back({graph_diff_ref(*it->second), what});
    } else {
      a_left.push_back(n);
    }
  }
  std::unordered_multimap<std::string, const ir::Node*> b_by_key;
  for (const ir::Node* n : bn)
    if (!matched_b.count(n)) b_by_key.emplace(graph_diff_key(*n), n);
  for (const ir::Node* n : a_left) {
    auto it = b_by_key.find(graph_diff_key(*n));
    if (it != b_by_key.end()) {
      matched_b.insert(it->second);
      std::string what = graph_diff_edit(*n, *it->second);
      if (!what.empty()) d.changed.push_back({graph_diff_ref(*it->second), what});
      b_by_key.erase(it);
      ++d.kept;
    } else {
      d.removed.push_back(graph_diff_ref(*n));
    }
  }
  for (const ir::Node* n : bn)
    if (!matched_b.count(n)) d.added.push_back(graph_diff_ref(*n));
  std::map<std::string, std::pair<int64_t, int64_t>> ops;
  for (const ir::Node* n : an) ++ops[graph_diff_op(*n)].first;
  for (const ir::Node* n : bn) ++ops[graph_diff_op(*n)].second;
  for (const auto& [op, c] : ops)
    if (c.first != c.second) d.ops.push_back({op, c.first, c.second});
  // Values of both graphs (inputs and node outputs by name) whose type differs.
  std::vector<const ir::Value*> avals(a.inputs().begin(), a.inputs().end());
  for (const ir::Node* n : an)
    for (const ir::Value* o : n->outputs())
      if (o) avals.push_back(o);
  for (const ir::Value* v : avals) {
    const ir::Value* w = b.find_value(v->name());
    if (!w || !v->type.is_known() || !w->type.is_known()) continue;
    std::string ta = graph_diff_type(*v), tb = graph_diff_type(*w);
    if (ta != tb) d.values.push_back({v->name(), ta, tb});
  }
  // Initializers by name.
  std::map<std::string, const ir::Value*> binit;
  for (const ir::Value* v : b.initializers()) binit[v->name()] = v;
  std::set<std::string> ainit;
  for (const ir::Value* v : a.initializers()) {
    ainit.insert(v->name());
    auto it = binit.find(v->name());
    if (it == binit.end()) d.initializers_removed.push_back({v->name(), graph_diff_bytes(*v), -1});
    else if (!graph_diff_same_tensor(*v->initializer(), *it->second->initializer()))
      d.initializers_changed.push_back({v->name(), graph_diff_bytes(*v), graph_diff_bytes(*it->second)});
  }
  for (const ir::Value* v : b.initializers())
    if (!ainit.count(v->name())) d.initializers_added.push_back({v->name(), -1, graph_diff_bytes(*v)});
  d.inputs = graph_diff_interface(a.inputs(), b.inputs());
  d.outputs = graph_diff_interface(a.outputs(), b.outputs());
  return d;
}

}  // namespace onnxtrim
