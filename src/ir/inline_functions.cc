// --inline-functions (see inline_functions.h).
#include "ir/inline_functions.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/clone.h"
#include "ir/rewriter.h"

namespace onnxtrim::ir {
namespace {

std::string inline_fn_key(std::string_view domain, std::string_view name) {
  return std::string(domain) + ":" + std::string(name);
}

// The model-local function a node calls, or nullptr.
const Function* inline_fn_called(const Model& m, const Node& n) {
  for (const Function& f : m.functions)
    if (f.name == n.op_type && f.domain == n.domain) return &f;
  return nullptr;
}

// Functions called by the nodes of g (and of its subgraphs), by key.
void inline_fn_calls_in(const Model& m, const Graph& g, std::set<std::string>& out) {
  g.for_each_node([&](const Node* n) {
    if (const Function* f = inline_fn_called(m, *n)) out.insert(inline_fn_key(f->domain, f->name));
    for (const Graph* sg : n->subgraphs()) inline_fn_calls_in(m, *sg, out);
  });
}

std::string inline_fn_domain(const std::string& d) { return d.empty() ? "ai.onnx" : d; }

}  // namespace

Result<InlinedFunctions> inline_functions(Model& m) {
  InlinedFunctions res;
  std::map<std::string, const Function*> by_key;
  for (const Function& f : m.functions) by_key.emplace(inline_fn_key(f.domain, f.name), &f);
  std::map<std::string, std::set<std::string>> callees;
  for (const Function& f : m.functions)
    if (f.body) inline_fn_calls_in(m, *f.body, callees[inline_fn_key(f.domain, f.name)]);

  // The functions the model's graphs reach, each checked: no cycle through it, its opset
  // imports agree with the model's.
  std::set<std::string> roots;
  inline_fn_calls_in(m, *m.graph, roots);
  std::set<std::string> reached;
  std::vector<std::string> path;
  std::function<Status(const std::string&)> visit = [&](const std::string& k) -> Status {
    if (auto it = std::find(path.begin(), path.end(), k); it != path.end()) {
      std::string chain;
      for (auto p = it; p != path.end(); ++p) chain += *p + " -> ";
      return Status(ErrorCode::kUnsupported, "--inline-functions: function " + k + " calls itself (" + chain + k +
                                                 "): a recursive function cannot be inlined");
    }
    if (reached.count(k)) return Status::ok();
    path.push_back(k);
    for (const std::string& c : callees[k])
      if (Status s = visit(c); !s.is_ok()) return s;
    path.pop_back();
    reached.insert(k);
    return Status::ok();
  };
  for (const std::string& k : roots)
    if (Status s = visit(k); !s.is_ok()) return s;
  std::vector<OpsetImport> to_add;
  for (const std::string& k : reached) {
    const Function& f = *by_key.at(k);
    if (!f.body) return Status(ErrorCode::kInvalidModel, "--inline-functions: function " + k + " has no body");
    for (const OpsetImport& imp : f.opset_import) {
      int64_t mine = m.opset(imp.domain);
      if (mine == 0) {
        bool listed = false;
        for (OpsetImport& a : to_add)
          if (inline_fn_domain(a.domain) == inline_fn_domain(imp.domain)) {
            listed = true;
            if (a.version != imp.version)
              return Status(ErrorCode::kUnsupported,
                            "--inline-functions: the functions import " + inline_fn_domain(imp.domain) + " opset " +
                                std::to_string(a.version) + " and " + std::to_string(imp.version) + " (function " + k +
                                "); one model can import only one");
          }
        if (!listed) to_add.push_back(OpsetImport{imp.domain, imp.version, 0});
      } else if (mine != imp.version) {
        return Status(ErrorCode::kUnsupported,
                      "--inline-functions: function " + k + " imports " + inline_fn_domain(imp.domain) + " opset " +
                          std::to_string(imp.version) + ", the model opset " + std::to_string(mine) +
                          ": its body would mean something else in the model (convert one "
                          "of them first)");
      }
    }
  }
  if (reached.empty()) return res;
  for (const OpsetImport& a : to_add) {
    m.opset_import.push_back(a);
    res.opsets_added.push_back(inline_fn_domain(a.domain) + "=" + std::to_string(a.version));
  }

  Rewriter rw(m);
  std::set<std::string> inlined;
  // One call: the instantiated body (attribute references resolved) copied before it.
  auto inline_call = [&](Graph& g, Node* call, const Function& f) -> Status {
    std::unique_ptr<Model> inst = instantiate_function(f, *call);
    const Graph& body = *inst->graph;
    std::unordered_map<const Value*, Value*> map;
    for (size_t i = 0; i < body.inputs().size(); ++i) map[body.inputs()[i]] = call->input(i);
    if (call->num_inputs() > body.inputs().size())
      return Status(ErrorCode::kInvalidModel, "--inline-functions: " + call->describe() + " passes " +
                                                  std::to_string(call->num_inputs()) + " inputs to function " +
                                                  inline_fn_key(f.domain, f.name) + ", which takes " +
                                                  std::to_string(body.inputs().size()));
    if (call->num_outputs() > body.outputs().size())
      return Status(ErrorCode::kInvalidModel, "--inline-functions: " + call->describe() + " expects " +
                                                  std::to_string(call->num_outputs()) + " outputs of function " +
                                                  inline_fn_key(f.domain, f.name) + ", which has " +
                                                  std::to_string(body.outputs().size()));
    std::unordered_set<const Node*> before;
    g.for_each_node([&](const Node* n) { before.insert(n); });
    std::vector<Value*> outs = inline_graph(body, g, call, rw, map);
    std::unordered_set<const Value*> claimed;
    for (size_t i = 0; i < call->num_outputs(); ++i) {
      Value* o = call->output(i);
      if (!o) continue;
      Value* v = outs[i];
      if (!v)
        return Status(ErrorCode::kInvalidModel, "--inline-functions: output " + std::to_string(i) + " of " +
                                                    call->describe() + " is a missing optional input of function " +
                                                    inline_fn_key(f.domain, f.name));
      // The call's output keeps its name: on a value the copied body makes, or else on an
      // Identity of what the body passes through (an input, an outer value, another output).
      bool own = v->graph() == &g && v->producer() && !before.count(v->producer()) && !v->is_graph_output() &&
                 !claimed.count(v);
      if (!own) v = rw.insert_node(g, call, "Identity", {v}, 1, o->name())->output(0);
      claimed.insert(v);
      if (o->type.is_known() && !v->type.is_known()) v->type = o->type;
      if (o->is_graph_output()) {
        if (!rw.replace_all_uses_with(o, v))
          return Status(ErrorCode::kInternal, "--inline-functions: graph output " + o->name() + " kept no name");
      } else {
        std::string name = o->name();
        rw.replace_all_uses_with(o, v);
        g.rename_value(o, m.unique_name(name + "_call"));
        g.rename_value(v, name);
        v->type = o->type.is_known() ? o->type : v->type;
        if (o->has_value_info && !v->has_value_info) {
          v->has_value_info = true;
          auto& vi = g.value_info_order();
          std::replace(vi.begin(), vi.end(), o, v);
          o->has_value_info = false;
        }
      }
    }
    rw.erase_node(call);
    inlined.insert(inline_fn_key(f.domain, f.name));
    ++res.calls;
    return Status::ok();
  };
  // Until no call is left: a body's own calls are inlined on a later sweep (no cycle, checked above).
  std::function<Result<bool>(Graph&)> sweep = [&](Graph& g) -> Result<bool> {
    bool any = false;
    for (Node* n : g.node_list()) {
      if (n->is_dead()) continue;
      if (const Function* f = inline_fn_called(m, *n)) {
        if (Status s = inline_call(g, n, *f); !s.is_ok()) return s;
        any = true;
        continue;
      }
      for (Graph* sg : n->subgraphs()) {
        auto r = sweep(*sg);
        if (!r.is_ok()) return r.status();
        any |= r.value();
      }
    }
    return any;
  };
  for (;;) {
    auto r = sweep(*m.graph);
    if (!r.is_ok()) return r.status();
    if (!r.value()) break;
  }
  res.inlined.assign(inlined.begin(), inlined.end());
  // Functions nothing calls any more (only those this run inlined: the others stay as they came).
  std::set<std::string> still;
  inline_fn_calls_in(m, *m.graph, still);
  for (const Function& f : m.functions)
    if (f.body && inlined.count(inline_fn_key(f.domain, f.name)) == 0) inline_fn_calls_in(m, *f.body, still);
  for (size_t i = 0; i < m.functions.size();) {
    std::string k = inline_fn_key(m.functions[i].domain, m.functions[i].name);
    if (inlined.count(k) && !still.count(k)) {
      res.removed.push_back(k);
      m.functions.erase(m.functions.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return res;
}

}  // namespace onnxtrim::ir
