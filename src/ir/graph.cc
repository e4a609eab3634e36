#include "ir/graph.h"

#include <algorithm>
#include <unordered_map>

namespace onnxtrim::ir {

// ---------------------------------------------------------------- Node

const Attribute* Node::attr(std::string_view n) const {
  for (const auto& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}

Attribute* Node::mutable_attr(std::string_view n) {
  for (auto& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}

int64_t Node::attr_int(std::string_view n, int64_t def) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::kInt ? a->i : def;
}

float Node::attr_float(std::string_view n, float def) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::kFloat ? a->f : def;
}

std::string Node::attr_string(std::string_view n, std::string def) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::kString ? a->s : def;
}

std::vector<int64_t> Node::attr_ints(std::string_view n, std::vector<int64_t> def) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::kInts ? a->ints : def;
}

std::vector<Graph*> Node::subgraphs() const {
  std::vector<Graph*> out;
  for (const auto& a : attributes) {
    if (a.type == AttrType::kGraph && a.g) out.push_back(a.g.get());
    if (a.type == AttrType::kGraphs)
      for (const auto& g : a.graphs) out.push_back(g.get());
  }
  return out;
}

std::string Node::describe() const {
  std::string who = name;
  if (who.empty()) {
    for (Value* o : outputs_)
      if (o) {
        who = "producing " + o->name();
        break;
      }
  }
  if (who.empty()) who = "<unnamed>";
  return who + " (" + (domain.empty() ? "" : domain + ".") + op_type + ")";
}

// ---------------------------------------------------------------- Graph: lifetime

Graph::~Graph() {
  std::vector<std::shared_ptr<Graph>> pending;
  auto take_subgraphs = [&pending](Graph& g) {
    auto from = [&pending](Node& n) {
      for (Attribute& a : n.attributes) {
        if (a.g) pending.push_back(std::move(a.g));
        for (auto& sg : a.graphs) pending.push_back(std::move(sg));
        a.graphs.clear();
      }
    };
    for (auto& n : g.nodes_) from(*n);
    for (auto& n : g.graveyard_) from(*n);
  };
  take_subgraphs(*this);
  while (!pending.empty()) {
    std::shared_ptr<Graph> sg = std::move(pending.back());
    pending.pop_back();
    // The last owner empties it first, so that its own destruction finds nothing nested.
    if (sg.use_count() == 1) take_subgraphs(*sg);
  }
}

// ---------------------------------------------------------------- Graph: values

Value* Graph::create_value(const std::string& name) {
  auto v = std::make_unique<Value>();
  v->name_ = name;
  v->graph_ = this;
  Value* raw = v.get();
  values_.push_back(std::move(v));
  if (!name.empty()) {
    by_name_[name] = raw;
    model_->reserve_name(name);
  }
  return raw;
}

Value* Graph::create_fresh_value(std::string_view hint) { return create_value(model_->unique_name(hint)); }

Value* Graph::find_value(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

Value* Graph::lookup(std::string_view name) const {
  for (const Graph* g = this; g != nullptr; g = g->parent_)
    if (Value* v = g->find_value(name)) return v;
  return nullptr;
}

void Graph::rename_value(Value* v, const std::string& new_name) {
  assert(v->graph_ == this);
  auto it = by_name_.find(v->name_);
  if (it != by_name_.end() && it->second == v) by_name_.erase(it);
  v->name_ = new_name;
  by_name_[new_name] = v;
  model_->reserve_name(new_name);
}

void Graph::add_input(Value* v) {
  v->graph_input_ = true;
  inputs_.push_back(v);
}

void Graph::add_output(Value* v) {
  v->graph_outputs_++;
  outputs_.push_back(v);
}

void Graph::set_output(size_t i, Value* v) {
  outputs_[i]->graph_outputs_--;
  v->graph_outputs_++;
  outputs_[i] = v;
}

void Graph::set_inputs(const std::vector<Value*>& vs) {
  for (Value* v : inputs_) v->graph_input_ = false;
  inputs_ = vs;
  for (Value* v : inputs_) v->graph_input_ = true;
}

void Graph::set_outputs(const std::vector<Value*>& vs) {
  for (Value* v : outputs_) v->graph_outputs_--;
  outputs_ = vs;
  for (Value* v : outputs_) v->graph_outputs_++;
}

void Graph::set_initializer(Value* v, std::shared_ptr<Tensor> t) {
  if (initializers_dirty_) compact_lists();
  if (!v->initializer_) initializers_.push_back(v);
  v->initializer_ = std::move(t);
}

void Graph::remove_initializer(Value* v) {
  if (!v->initializer_) return;
  v->initializer_.reset();
  initializers_dirty_ = true;
}

void Graph::compact_lists() const {
  if (initializers_dirty_) {
    initializers_.erase(
        std::remove_if(initializers_.begin(), initializers_.end(), [](const Value* v) { return !v->initializer_; }),
        initializers_.end());
    initializers_dirty_ = false;
  }
  if (value_info_dirty_) {
    value_info_.erase(
        std::remove_if(value_info_.begin(), value_info_.end(), [](const Value* v) { return !v->has_value_info; }),
        value_info_.end());
    value_info_dirty_ = false;
  }
}

// ---------------------------------------------------------------- Graph: nodes

Node* Graph::make_node(std::string op_type, std::string domain) {
  auto n = std::make_unique<Node>();
  n->op_type = std::move(op_type);
  n->domain = std::move(domain);
  n->graph_ = this;
  return n.release();
}

Node* Graph::append_node(std::string op_type, std::string domain) {
  Node* n = make_node(std::move(op_type), std::move(domain));
  n->pos_ = nodes_.insert(nodes_.end(), std::unique_ptr<Node>(n));
  ++num_nodes_;
  return n;
}

Node* Graph::insert_node_before(Node* pos, std::string op_type, std::string domain) {
  if (pos == nullptr) return append_node(std::move(op_type), std::move(domain));
  assert(pos->graph_ == this && !pos->dead_);
  Node* n = make_node(std::move(op_type), std::move(domain));
  n->pos_ = nodes_.insert(pos->pos_, std::unique_ptr<Node>(n));
  ++num_nodes_;
  return n;
}

Node* Graph::insert_node_after(Node* pos, std::string op_type, std::string domain) {
  assert(pos->graph_ == this && !pos->dead_);
  Node* n = make_node(std::move(op_type), std::move(domain));
  n->pos_ = nodes_.insert(std::next(pos->pos_), std::unique_ptr<Node>(n));
  ++num_nodes_;
  return n;
}

void Graph::move_node_before(Node* n, Node* pos) {
  assert(n->graph_ == this && pos->graph_ == this);
  if (n == pos) return;
  nodes_.splice(pos->pos_, nodes_, n->pos_);
}

void Graph::add_node_input(Node* n, Value* v) {
  n->inputs_.push_back(v);
  if (v) v->uses_.push_back(Use{n, static_cast<int>(n->inputs_.size() - 1)});
}

void Graph::drop_use(Value* v, Node* n, int index) {
  auto& u = v->uses_;
  auto it = std::find(u.begin(), u.end(), Use{n, index});
  assert(it != u.end());
  *it = u.back();
  u.pop_back();
}

void Graph::set_node_input(Node* n, size_t i, Value* v) {
  if (i >= n->inputs_.size()) n->inputs_.resize(i + 1, nullptr);
  Value* old = n->inputs_[i];
  if (old == v) return;
  if (old) drop_use(old, n, static_cast<int>(i));
  n->inputs_[i] = v;
  if (v) v->uses_.push_back(Use{n, static_cast<int>(i)});
}

void Graph::remove_trailing_inputs(Node* n, size_t keep) {
  while (n->inputs_.size() > keep) {
    if (Value* v = n->inputs_.back()) drop_use(v, n, static_cast<int>(n->inputs_.size() - 1));
    n->inputs_.pop_back();
  }
}

void Graph::add_node_output(Node* n, Value* v) {
  n->outputs_.push_back(v);
  if (v) {
    assert(v->producer_ == nullptr);
    v->producer_ = n;
    v->producer_output_ = static_cast<int>(n->outputs_.size() - 1);
  }
}

void Graph::set_node_output(Node* n, size_t i, Value* v) {
  if (i >= n->outputs_.size()) n->outputs_.resize(i + 1, nullptr);
  if (Value* old = n->outputs_[i]) {
    old->producer_ = nullptr;
    old->producer_output_ = -1;
  }
  n->outputs_[i] = v;
  if (v) {
    v->producer_ = n;
    v->producer_output_ = static_cast<int>(i);
  }
}

void Graph::trim_trailing_empty_outputs(Node* n) {
  while (!n->outputs_.empty() && n->outputs_.back() == nullptr) n->outputs_.pop_back();
}

// Drops the uses that the nodes of g (recursively) hold on values outside g, so that
// erasing the node owning g leaves no stale uses in enclosing scopes.
static void drop_outer_uses(Graph& g) {
  g.for_each_node([&](Node* inner) {
    for (size_t i = 0; i < inner->num_inputs(); ++i) {
      Value* v = inner->input(i);
      if (v && v->graph() != &g) v->graph()->set_node_input(inner, i, nullptr);
    }
    for (Graph* sg : inner->subgraphs()) drop_outer_uses(*sg);
  });
}

void Graph::erase_node(Node* n) {
  assert(n->graph_ == this && !n->dead_);
  for (size_t i = 0; i < n->inputs_.size(); ++i)
    if (Value* v = n->inputs_[i]) drop_use(v, n, static_cast<int>(i));
  n->inputs_.clear();
  for (Graph* sg : n->subgraphs()) drop_outer_uses(*sg);
  for (Value* o : n->outputs_) {
    if (!o) continue;
    assert(o->uses_.empty() && !o->is_graph_output());
    o->producer_ = nullptr;
    erase_value(o);
  }
  n->dead_ = true;
  graveyard_.push_back(std::move(*n->pos_));
  nodes_.erase(n->pos_);
  --num_nodes_;
}

void Graph::erase_value(Value* v) {
  assert(v->graph_ == this && v->uses_.empty() && v->producer_ == nullptr);
  assert(!v->graph_input_ && v->graph_outputs_ == 0 && !v->initializer_);
  if (v->dead_) return;
  v->dead_ = true;
  ++dead_values_;
  auto it = by_name_.find(v->name_);
  if (it != by_name_.end() && it->second == v) by_name_.erase(it);
  if (v->has_value_info) {
    v->has_value_info = false;
    value_info_dirty_ = true;
  }
}

void Graph::purge() {
  graveyard_.clear();
  compact_lists();
  if (dead_values_ == 0) return;
  // An erased value that a node or the graph's outputs read again (a rewrite's bug) is kept, not
  // freed: the verifier then names it as read but never defined, where freeing it would leave a
  // dangling pointer.
  auto freeable = [](const std::unique_ptr<Value>& v) {
    return v->dead_ && v->uses_.empty() && v->graph_outputs_ == 0;
  };
  values_.erase(std::remove_if(values_.begin(), values_.end(), freeable), values_.end());
  dead_values_ = static_cast<size_t>(
      std::count_if(values_.begin(), values_.end(), [](const std::unique_ptr<Value>& v) { return v->dead_; }));
}

std::vector<Node*> Graph::node_list() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

// Kahn's algorithm, stable: among ready nodes the earliest in the current order goes first.
bool Graph::topological_sort(std::string* cycle_node) {
  std::vector<Node*> order = node_list();
  std::unordered_map<Node*, size_t> index;
  index.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) index[order[i]] = i;
  // Every edge producer -> reader by their places in `order`: the producers of a node's inputs
  // and of the values its subgraphs read (outer-scope refs). f returns false to stop.
  auto for_each_edge = [&](auto&& f) {
    auto visit = [&](size_t reader, const Value* v, bool direct) {
      if (!v || !v->producer_) return true;
      auto it = index.find(v->producer_);
      return it == index.end() || f(it->second, reader, direct);
    };
    auto body = [&](size_t reader, const Graph& g, auto&& self) -> bool {
      bool go = true;
      g.for_each_node([&](Node* n) {
        for (Value* v : n->inputs_) go = go && visit(reader, v, false);
        for (Graph* sg : n->subgraphs()) go = go && self(reader, *sg, self);
      });
      return go;
    };
    for (size_t i = 0; i < order.size(); ++i) {
      for (Value* v : order[i]->inputs_)
        if (!visit(i, v, true)) return;
      for (Graph* sg : order[i]->subgraphs())
        if (!body(i, *sg, body)) return;
    }
  };
  // Already in order (as a file nearly always is): checked without building the edges.
  bool in_order = true;
  for_each_edge([&](size_t p, size_t r, bool) { return in_order = p < r; });
  if (in_order) return true;
  std::vector<std::vector<size_t>> succ(order.size());
  std::vector<size_t> indeg(order.size(), 0);
  bool cycle = false;
  for_each_edge([&](size_t p, size_t r, bool direct) {
    if (p == r) {
      if (!direct) return true;  // a body reading its own node's output: no edge
      if (cycle_node) *cycle_node = order[r]->describe();
      cycle = true;
      return false;
    }
    succ[p].push_back(r);
    indeg[r]++;
    return true;
  });
  if (cycle) return false;

  // Min-heap on original index keeps the order stable.
  std::vector<size_t> ready;
  auto cmp = [](size_t a, size_t b) { return a > b; };
  for (size_t i = 0; i < order.size(); ++i)
    if (indeg[i] == 0) ready.push_back(i);
  std::make_heap(ready.begin(), ready.end(), cmp);
  std::vector<size_t> sorted;
  sorted.reserve(order.size());
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), cmp);
    size_t i = ready.back();
    ready.pop_back();
    sorted.push_back(i);
    for (size_t s : succ[i])
      if (--indeg[s] == 0) {
        ready.push_back(s);
        std::push_heap(ready.begin(), ready.end(), cmp);
      }
  }
  if (sorted.size() != order.size()) {
    for (size_t i = 0; i < order.size(); ++i)
      if (indeg[i] != 0) {
        if (cycle_node) *cycle_node = order[i]->describe();
        break;
      }
    return false;
  }
  for (size_t i : sorted) nodes_.splice(nodes_.end(), nodes_, order[i]->pos_);
  return true;
}

void Graph::clone_into(Graph& into) const {
  into.name = name;
  into.doc_string = doc_string;
  into.extra = extra;
  into.presence = presence;
  std::unordered_map<const Value*, Value*> map;
  auto get = [&](const Value* v) -> Value* {
    if (!v) return nullptr;
    auto it = map.find(v);
    if (it != map.end()) return it->second;
    // Outer-scope reference: resolve by name in the destination's scope chain.
    Value* outer = into.parent_ ? into.parent_->lookup(v->name_) : nullptr;
    map[v] = outer;
    return outer;
  };
  auto copy_meta = [](const Value* from, Value* to) {
    to->type = from->type;
    to->doc_string = from->doc_string;
    to->info_extra = from->info_extra;
  };
  for (const auto& v : values_) {
    if (v->dead_) continue;
    Value* nv = into.create_value(v->name_);
    copy_meta(v.get(), nv);
    nv->presence = v->presence;
    map[v.get()] = nv;
  }
  for (Value* v : inputs_) into.add_input(map[v]);
  for (Value* v : initializers_) into.set_initializer(map[v], v->initializer_);
  for (Value* v : value_info_) {
    Value* nv = map[v];
    nv->has_value_info = true;
    into.value_info_.push_back(nv);
  }
  for (const auto& n : nodes_) {
    Node* nn = into.append_node(n->op_type, n->domain);
    nn->name = n->name;
    nn->doc_string = n->doc_string;
    nn->extra = n->extra;
    nn->presence = n->presence;
    for (const Attribute& a : n->attributes) nn->attributes.push_back(copy_attribute_shallow(a));
    for (Value* o : n->outputs_) into.add_node_output(nn, o ? map[o] : nullptr);
    // Subgraphs are cloned after the node's outputs exist, before its inputs are looked up
    // (inputs come from earlier nodes, which are all mapped already).
    for (size_t ai = 0; ai < n->attributes.size(); ++ai) {
      const Attribute& a = n->attributes[ai];
      Attribute& c = nn->attributes[ai];
      if (a.type == AttrType::kGraph && a.g) {
        c.g = std::make_shared<Graph>(into.model_, &into, nn);
        a.g->clone_into(*c.g);
      } else if (a.type == AttrType::kGraphs) {
        for (const auto& g : a.graphs) {
          auto ng = std::make_shared<Graph>(into.model_, &into, nn);
          g->clone_into(*ng);
          c.graphs.push_back(std::move(ng));
        }
      }
    }
    for (Value* in : n->inputs_) into.add_node_input(nn, get(in));
  }
  for (Value* v : outputs_) into.add_output(get(v));
}

const Tensor* constant_tensor_of(const Value* v) {
  if (const Tensor* t = v->initializer()) return t;
  if (v->producer() && v->producer()->op_type == "Constant") {
    const Attribute* a = v->producer()->attr("value");
    if (a && a->t) return a->t.get();
  }
  return nullptr;
}

// ---------------------------------------------------------------- Model

Model::Model() : graph(std::make_unique<Graph>(this, nullptr, nullptr)) {}

int64_t Model::opset(std::string_view d) const {
  if (d == "ai.onnx") d = "";
  for (const auto& o : opset_import)
    if (o.domain == d || (d.empty() && o.domain == "ai.onnx")) return o.version;
  return 0;
}

std::string Model::unique_name(std::string_view hint) {
  std::string base(hint.empty() ? "v" : hint);
  if (!used_names_.count(base)) {
    used_names_.insert(base);
    return base;
  }
  for (;;) {
    std::string cand = base + "__" + std::to_string(++name_counter_);
    if (!used_names_.count(cand)) {
      used_names_.insert(cand);
      return cand;
    }
  }
}

}  // namespace onnxtrim::ir
