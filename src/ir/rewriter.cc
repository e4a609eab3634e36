#include "ir/rewriter.h"

#include <algorithm>
#include <cassert>

namespace onnxtrim::ir {

namespace {
// True when nodes of graph g can read v: v belongs to g or to a graph enclosing it.
bool visible_in(const Value* v, const Graph* g) {
  for (const Graph* s = g; s; s = s->parent())
    if (v->graph() == s) return true;
  return false;
}
}  // namespace

void Rewriter::touched(const Node* n) {
  if (!log_ || !n) return;
  while (n->graph() && n->graph()->owner()) n = n->graph()->owner();
  log_->nodes.push_back(n);
}

NodeSnapshot snapshot_of(const Node& n, const std::unordered_map<uint64_t, std::string>* renamed) {
  NodeSnapshot s{n.name, n.is_default_domain() ? n.op_type : n.domain + "." + n.op_type, {}};
  for (const Value* o : n.outputs()) {
    if (!o) continue;
    const std::string* name = &o->name();
    if (renamed) {
      auto it = renamed->find(o->serial());
      if (it != renamed->end()) name = &it->second;
    }
    s.outputs.push_back(*name);
  }
  return s;
}

void Rewriter::edited(const Node* n) {
  if (!history_ || !n) return;
  while (n->graph() && n->graph()->owner()) n = n->graph()->owner();
  if (!history_->added.count(n)) history_->changed.insert(n);
}

void Rewriter::touched(const Graph* g) {
  if (log_ && g && g->owner()) touched(g->owner());
}

void Rewriter::seeded(const Value* v) {
  if (log_ && v->graph() == model_.graph.get()) log_->initializers.push_back(v);
}

bool Rewriter::can_replace(const Value* from, const Value* to) {
  if (from == to || to == nullptr) return false;
  // Every reader of `from` must be able to see `to`.
  for (const Use& u : from->uses())
    if (!visible_in(to, u.node->graph())) return false;
  if (from->is_graph_output() && !visible_in(to, from->graph())) return false;
  if (!from->is_graph_output()) return true;
  // `to` must be able to take over from's name.
  return to->graph() == from->graph() && to->producer() != nullptr && !to->is_graph_input() && !to->is_graph_output() &&
         !to->is_initializer();
}

bool Rewriter::replace_all_uses_with(Value* from, Value* to) {
  if (!can_replace(from, to)) return false;
  Graph* g = from->graph();
  for (const Use& u : from->uses()) touched(u.node);
  if (from->is_graph_output()) {
    touched(to->producer());  // its declaration becomes the output's
    touched(g);
    // Hand the name over: `from` becomes an anonymous internal value, `to` carries the name.
    std::string name = from->name();
    if (history_) history_->renamed.emplace(from->serial(), name);
    g->rename_value(from, model_.unique_name(name + "_replaced"));
    g->rename_value(to, name);
    // The graph output keeps its declared type and ValueInfo details.
    to->type = from->type;
    to->doc_string = from->doc_string;
    to->info_extra = from->info_extra;
    to->presence = from->presence;
    for (size_t i = 0; i < g->outputs().size(); ++i)
      if (g->outputs()[i] == from) g->set_output(i, to);
    // `to` was an internal value, which may have a value_info entry (the facts' write-back
    // adds them); as a graph output it is declared by the output's ValueInfo alone. The entry
    // would survive (eliminate_unused_value_info keeps those of live values) and the file would
    // declare the output twice (a no-op Cast feeding a graph output, as torch writes GPT-J's
    // k.to(float32)). An entry the output itself came with moves over instead.
    if (to->has_value_info) g->drop_value_info(to);
    if (from->has_value_info) {
      auto& vi = g->value_info_order();  // compacted first: without `to`'s own entry
      std::replace(vi.begin(), vi.end(), from, to);
      from->has_value_info = false;
      to->has_value_info = true;
      to->doc_string = from->doc_string;
    }
  }
  std::vector<Use> uses = from->uses();
  for (const Use& u : uses) u.node->graph()->set_node_input(u.node, static_cast<size_t>(u.index), to);
  ++changes_;
  return true;
}

void Rewriter::set_input(Node* n, size_t i, Value* v) {
  if (n->input(i) == v && i < n->num_inputs()) return;
  if (v && !visible_in(v, n->graph())) {
    // A rewrite rooted in a subgraph may rewrite a node of an enclosing graph (a Conv outside
    // an If whose only reader, the BatchNormalization folded in, is inside it) and make the
    // new constant in the graph it works on. The constant belongs where its reader is.
    assert(v->is_initializer());
    touched(v->graph());
    v = move_initializer(v, *n->graph());
  }
  n->graph()->set_node_input(n, i, v);
  touched(n);
  edited(n);
  ++changes_;
}

Value* Rewriter::move_initializer(Value* v, Graph& to) {
  if (v->has_uses() || v->is_graph_input() || v->is_graph_output()) {
    // Read where it is as well: `to` gets a copy.
    ++changes_;
    Value* copy = to.create_fresh_value(v->name());
    auto t = std::make_shared<Tensor>(*v->initializer());
    t->set_name(copy->name());
    copy->type = v->type;
    to.set_initializer(copy, std::move(t));
    seeded(copy);
    return copy;
  }
  Graph* from = v->graph();
  std::shared_ptr<Tensor> t = v->initializer_ptr();
  if (t.use_count() > 1) t = std::make_shared<Tensor>(*t);
  Type type = v->type;
  std::string name = v->name();
  from->remove_initializer(v);
  from->erase_value(v);
  // The name was made model-unique: it stays free in `to` and the graphs around it.
  Value* moved = to.lookup(name) ? to.create_fresh_value(name) : to.create_value(name);
  t->set_name(moved->name());
  moved->type = std::move(type);
  to.set_initializer(moved, std::move(t));
  seeded(moved);
  return moved;
}

void Rewriter::remove_trailing_inputs(Node* n, size_t keep) {
  if (n->num_inputs() <= keep) return;
  n->graph()->remove_trailing_inputs(n, keep);
  touched(n);
  edited(n);
  ++changes_;
}

void Rewriter::set_graph_output(Graph& g, size_t i, Value* v) {
  assert(i < g.outputs().size() && visible_in(v, &g));
  if (g.outputs()[i] == v) return;
  g.set_output(i, v);
  touched(&g);
  edited(g.owner());
  ++changes_;
}

void Rewriter::set_attribute(Node* n, Attribute a) {
  for (auto& existing : n->attributes)
    if (existing.name == a.name) {
      existing = std::move(a);
      touched(n);
      edited(n);
      ++changes_;
      return;
    }
  n->attributes.push_back(std::move(a));
  touched(n);
  edited(n);
  ++changes_;
}

void Rewriter::remove_attribute(Node* n, std::string_view name) {
  auto& as = n->attributes;
  auto it = std::find_if(as.begin(), as.end(), [&](const Attribute& a) { return a.name == name; });
  if (it == as.end()) return;
  as.erase(it);
  touched(n);
  edited(n);
  ++changes_;
}

void Rewriter::set_op_type(Node* n, std::string op_type) {
  if (n->op_type == op_type) return;
  n->op_type = std::move(op_type);
  touched(n);
  edited(n);
  ++changes_;
}

void Rewriter::erase_node(Node* n) {
  touched(n->graph());
  if (history_) {
    if (n->graph() != model_.graph.get()) {
      edited(n->graph()->owner());
    } else if (!history_->added.erase(n)) {
      history_->changed.erase(n);
      history_->removed.push_back(snapshot_of(*n, &history_->renamed));
    }
  }
  n->graph()->erase_node(n);
  ++changes_;
  ++nodes_removed_;
}

void Rewriter::erase_node_and_dead_producers(Node* n) {
  std::vector<Node*> work{n};
  while (!work.empty()) {
    Node* cur = work.back();
    work.pop_back();
    if (cur->is_dead()) continue;
    bool removable = true;
    for (Value* o : cur->outputs())
      if (o && (o->has_uses() || o->is_graph_output())) removable = false;
    if (!removable) continue;
    std::vector<Node*> producers;
    for (Value* in : cur->inputs())
      if (in && in->producer() && in->uses().size() == 1) producers.push_back(in->producer());
    std::vector<Value*> inits;
    for (Value* in : cur->inputs())
      if (in && in->is_initializer() && in->uses().size() == 1 && !in->is_graph_output() && !in->is_graph_input())
        inits.push_back(in);
    erase_node(cur);
    for (Value* v : inits)
      if (!v->has_uses()) remove_initializer(v);
    for (Node* p : producers) work.push_back(p);
  }
}

Node* Rewriter::insert_node(Graph& g, Node* pos, std::string op_type, const std::vector<Value*>& inputs,
                            size_t num_outputs, std::string_view name_hint, std::string domain) {
  for ([[maybe_unused]] Value* v : inputs) assert(!v || visible_in(v, &g));
  Node* n = pos ? g.insert_node_before(pos, std::move(op_type), std::move(domain))
                : g.append_node(std::move(op_type), std::move(domain));
  n->name = model_.unique_name(name_hint);
  for (Value* v : inputs) g.add_node_input(n, v);
  for (size_t i = 0; i < num_outputs; ++i)
    g.add_node_output(n,
                      g.create_fresh_value(std::string(name_hint) + (num_outputs > 1 ? "_" + std::to_string(i) : "")));
  touched(n);
  if (history_) {
    if (&g == model_.graph.get()) history_->added.insert(n);
    else edited(g.owner());
  }
  ++changes_;
  ++nodes_added_;
  return n;
}

Value* Rewriter::add_initializer(Graph& g, Tensor t, std::string_view name_hint) {
  Value* v = g.create_fresh_value(name_hint);
  t.set_name(v->name());
  v->type = Type::tensor(t.dtype(), {});
  for (int64_t d : t.dims()) v->type.dims.push_back(Dim::known(d));
  g.set_initializer(v, std::make_shared<Tensor>(std::move(t)));
  touched(&g);
  edited(g.owner());
  seeded(v);
  ++changes_;
  return v;
}

void Rewriter::make_constant(Value* v, Tensor t) {
  Graph* g = v->graph();
  touched(g);
  if (Node* p = v->producer()) {
    edited(p);
    g->set_node_output(p, static_cast<size_t>(v->producer_output()), nullptr);
  }
  t.set_name(v->name());
  std::vector<Dim> dims;
  for (int64_t d : t.dims()) dims.push_back(Dim::known(d));
  v->type = Type::tensor(t.dtype(), std::move(dims));
  g->set_initializer(v, std::make_shared<Tensor>(std::move(t)));
  seeded(v);
  ++changes_;
}

void Rewriter::remove_initializer(Value* v) {
  Graph* g = v->graph();
  touched(g);
  g->remove_initializer(v);
  if (!v->has_uses() && !v->is_graph_output() && !v->is_graph_input() && v->producer() == nullptr) g->erase_value(v);
  ++changes_;
}

void Rewriter::set_type(Value* v, Type t) {
  if (v->type == t) return;
  v->type = std::move(t);
  if (v->producer()) touched(v->producer());
  else touched(v->graph());
  ++changes_;
}

void Rewriter::remove_value_info(Value* v) {
  if (!v->has_value_info) return;
  v->graph()->drop_value_info(v);
  if (v->producer()) touched(v->producer());
  else touched(v->graph());
  ++changes_;
}

}  // namespace onnxtrim::ir
