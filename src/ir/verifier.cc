#include "ir/verifier.h"

#include <algorithm>
#include <unordered_set>

#include "support/text.h"

namespace onnxtrim::ir {

namespace {

// `defined` holds the values visible at the current point: those of enclosing scopes (up to
// the node that owns the subgraph) and those of this graph defined so far.
Status check(const Graph& g, std::unordered_set<const Value*>& defined) {
  std::vector<const Value*> added;
  auto define = [&](const Value* v) {
    if (defined.insert(v).second) added.push_back(v);
  };
  for (Value* v : g.inputs()) define(v);
  for (Value* v : g.initializers()) define(v);
  Status st;
  g.for_each_node([&](Node* n) {
    if (!st.is_ok()) return;
    if (n->graph() != &g || n->is_dead()) {
      st = make_error(ErrorCode::kInternal, "node is not live in this graph");
      st.with_node(n->describe());
      return;
    }
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      Value* v = n->inputs()[i];
      if (!v) continue;
      if (!defined.count(v)) {
        st = make_error(ErrorCode::kInvalidModel,
                        "input '" + v->name() + "' is used before it is defined (or never defined)");
        st.with_node(n->describe());
        return;
      }
      auto& u = v->uses();
      if (std::find(u.begin(), u.end(), Use{n, static_cast<int>(i)}) == u.end()) {
        st = make_error(ErrorCode::kInternal, "use list of '" + v->name() + "' misses this node");
        st.with_node(n->describe());
        return;
      }
    }
    for (Graph* sg : n->subgraphs()) {
      if (sg->parent() != &g) {
        st = make_error(ErrorCode::kInternal, "subgraph parent link broken");
        st.with_node(n->describe());
        return;
      }
      Status s2 = check(*sg, defined);
      if (!s2.is_ok()) {
        st = s2;
        return;
      }
    }
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      Value* o = n->outputs()[i];
      if (!o) continue;
      if (o->producer() != n || o->producer_output() != static_cast<int>(i)) {
        st = make_error(ErrorCode::kInternal, "producer link of '" + o->name() + "' broken");
        st.with_node(n->describe());
        return;
      }
      if (defined.count(o)) {
        st = make_error(ErrorCode::kInvalidModel, "value '" + o->name() + "' is defined twice");
        st.with_node(n->describe());
        return;
      }
      define(o);
    }
  });
  if (st.is_ok()) {
    for (Value* v : g.outputs())
      if (!v || !defined.count(v)) {
        st = make_error(ErrorCode::kInvalidModel,
                        "graph output '" + (v ? v->name() : std::string("?")) + "' is never defined");
        break;
      }
  }
  if (st.is_ok()) {
    // Every recorded use points back at a live node that reads this value.
    for (const Value* v : added)
      for (const Use& u : v->uses())
        if (u.node->is_dead() || u.node->input(static_cast<size_t>(u.index)) != v) {
          st = make_error(ErrorCode::kInternal, "stale use of '" + v->name() + "'");
          break;
        }
  }
  for (const Value* v : added) defined.erase(v);
  return st;
}

}  // namespace

Status verify_graph(const Graph& g) {
  std::unordered_set<const Value*> defined;
  // Values of enclosing scopes are visible.
  for (const Graph* p = g.parent(); p; p = p->parent()) {
    for (Value* v : p->inputs()) defined.insert(v);
    for (Value* v : p->initializers()) defined.insert(v);
    p->for_each_node([&](Node* n) {
      for (Value* o : n->outputs())
        if (o) defined.insert(o);
    });
  }
  return check(g, defined);
}

Status verify_model(const Model& m) {
  OT_RETURN_IF_ERROR(check_subgraph_depth(m));
  return verify_graph(*m.graph);
}

namespace {

// The names and initializer types of g's values and those of its subgraphs.
Status check_names_and_types(const Graph& g) {
  auto value = [&g](const Value* v) -> Status {
    // A node output without a name is an absent output (nullptr), never a value; an input or
    // initializer named "" is the file's and is written back as it came.
    if (v->name().empty() && v->producer()) return make_error(ErrorCode::kInvalidModel, "a node output has no name");
    if (!support::valid_utf8(v->name()))
      return make_error(ErrorCode::kInvalidModel, "value name '" + v->name() + "' is not valid UTF-8");
    if (!v->name().empty() && g.find_value(v->name()) != v)
      return make_error(ErrorCode::kInvalidModel, "two values of graph '" + g.name + "' are named '" + v->name() + "'");
    if (const Tensor* t = v->initializer(); t && !v->is_graph_input() && v->type.is_tensor()) {
      const Type& ty = v->type;
      bool same = ty.elem == DataType::kUndefined || ty.elem == t->dtype();
      if (same && ty.has_shape) {
        same = ty.dims.size() == t->dims().size();
        for (size_t i = 0; same && i < ty.dims.size(); ++i)
          same = !ty.dims[i].is_known() || *ty.dims[i].value == t->dims()[i];
      }
      if (!same) {
        std::vector<Dim> dims;
        for (int64_t d : t->dims()) dims.push_back(Dim::known(d));
        return make_error(ErrorCode::kInvalidModel, "initializer '" + v->name() + "' is declared " + ty.str() +
                                                        " but holds " +
                                                        Type::tensor(t->dtype(), std::move(dims)).str());
      }
    }
    return Status::ok();
  };
  for (const Value* v : g.inputs()) OT_RETURN_IF_ERROR(value(v));
  for (const Value* v : g.initializers()) OT_RETURN_IF_ERROR(value(v));
  Status st;
  g.for_each_node([&](const Node* n) {
    for (const Value* o : n->outputs())
      if (o && st.is_ok()) {
        st = value(o);
        if (!st.is_ok()) st.with_node(n->describe());
      }
    for (const Graph* sg : n->subgraphs())
      if (st.is_ok()) st = check_names_and_types(*sg);
  });
  return st;
}

}  // namespace

Status check_names_and_types(const Model& m) {
  Status st = check_names_and_types(*m.graph);
  for (const Function& f : m.functions)
    if (st.is_ok() && f.body) {
      st = check_names_and_types(*f.body);
      if (!st.is_ok()) st = Status(st.code(), "in function '" + f.name + "': " + st.detail()).with_node(st.node());
    }
  return st;
}

Status verify_for_write(const Model& m) {
  Status st = verify_model(m);
  for (const Function& f : m.functions)
    if (st.is_ok() && f.body) {
      st = verify_graph(*f.body);
      if (!st.is_ok()) st = Status(st.code(), "in function '" + f.name + "': " + st.detail()).with_node(st.node());
    }
  if (st.is_ok() && !m.unchecked_names_and_types) st = check_names_and_types(m);
  if (st.is_ok()) return st;
  return Status(ErrorCode::kInternal, "the model to write is not valid (" +
                                          (m.changed_by.empty() ? std::string("as loaded") : "after " + m.changed_by) +
                                          "), so nothing is written: " + st.message());
}

int subgraph_depth(const Model& m) {
  int deepest = 0;
  std::vector<std::pair<const Graph*, int>> todo;
  todo.emplace_back(m.graph.get(), 0);
  for (const Function& f : m.functions)
    if (f.body) todo.emplace_back(f.body.get(), 0);
  while (!todo.empty()) {
    const Graph* g = todo.back().first;
    int depth = todo.back().second;  // not a structured binding: clang 14 cannot capture those in a lambda
    todo.pop_back();
    deepest = std::max(deepest, depth);
    if (depth > kMaxSubgraphDepth) break;
    g->for_each_node([&](Node* n) {
      for (Graph* sg : n->subgraphs()) todo.emplace_back(sg, depth + 1);
    });
  }
  return deepest;
}

Status check_subgraph_depth(const Model& m) {
  if (subgraph_depth(m) <= kMaxSubgraphDepth) return Status::ok();
  return make_error(ErrorCode::kUnsupported, "subgraphs (If/Loop/Scan bodies) nest more than " +
                                                 std::to_string(kMaxSubgraphDepth) +
                                                 " levels deep, the most onnxtrim handles");
}

}  // namespace onnxtrim::ir
