// The Rewriter: the one door through which passes change a model. It counts every change it
// makes, so the pass manager decides "did anything change" from the count, not from a flag a
// pass reports. It is also the one place that protects graph input and output names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"

namespace onnxtrim::ir {

// What a rewriter changed, for facts about the model that are brought up to date instead of
// made afresh: the main-graph nodes whose facts a change may alter (a change inside a subgraph
// names the main-graph node that owns it). `initializers`: the main-graph values made
// initializers (or given another tensor), whose facts are seeded again; a removed initializer
// names nothing. `whole`: a change no node stands for.
struct ChangeLog {
  std::vector<const Node*> nodes;
  std::vector<const Value*> initializers;
  bool whole = false;
  void clear() {
    nodes.clear();
    initializers.clear();
    whole = false;
  }
};

// A node as the report names it: its name, "op" or "domain.op", its output names.
struct NodeSnapshot {
  std::string name, op;
  std::vector<std::string> outputs;
};
// `renamed`: names handed over (NodeHistory::renamed), shown instead of the current ones.
NodeSnapshot snapshot_of(const Node& n, const std::unordered_map<uint64_t, std::string>* renamed = nullptr);

// What a rewriter did to the main graph's nodes, one by one, for the report's provenance (only
// when asked: Rewriter::set_history). `removed`: the nodes erased, as they were then (a node made
// and erased under the same history is in no list). `added`: the nodes made; `changed`: nodes
// edited in place (inputs, attributes, op type, an output dropped) or whose bodies changed. The
// pointers are only compared with live nodes, never read: an erased node leaves both sets.
struct NodeHistory {
  std::vector<NodeSnapshot> removed;
  std::unordered_set<const Node*> added, changed;
  // A graph output's name handed over (replace_all_uses_with): the old value's serial -> the name
  // it had, which a removed node's snapshot shows.
  std::unordered_map<uint64_t, std::string> renamed;
  bool empty() const { return removed.empty() && added.empty() && changed.empty(); }
};

class Rewriter {
 public:
  explicit Rewriter(Model& model) : model_(model) {}

  Model& model() { return model_; }
  int64_t changes() const { return changes_; }
  int64_t nodes_removed() const { return nodes_removed_; }
  int64_t nodes_added() const { return nodes_added_; }

  // Every use of `from` reads `to` instead. When `from` is an output of its graph, its name
  // must survive: `to` takes over the name if it is a plain node output of the same graph
  // (not an input, initializer, another output or an outer-scope value); otherwise nothing is
  // changed and false is returned. Graph inputs are never renamed.
  bool replace_all_uses_with(Value* from, Value* to);
  // True when replace_all_uses_with(from, to) would succeed.
  static bool can_replace(const Value* from, const Value* to);

  // Node n reads v as input i. v must be visible from n's graph (its own or an enclosing
  // one), or be an initializer: one made in another graph (a rewrite working in a subgraph on
  // a node of an enclosing graph) moves to n's graph (or is copied there if read elsewhere).
  void set_input(Node* n, size_t i, Value* v);
  void remove_trailing_inputs(Node* n, size_t keep);
  // Output i of g becomes v (positional: for subgraph outputs, whose names nobody outside
  // reads; a main-graph output keeps its name through replace_all_uses_with instead).
  void set_graph_output(Graph& g, size_t i, Value* v);
  void set_attribute(Node* n, Attribute a);  // adds or replaces by name
  void remove_attribute(Node* n, std::string_view name);
  void set_op_type(Node* n, std::string op_type);

  // Erases a node whose outputs are all unused and none of which is a graph output.
  void erase_node(Node* n);
  // Erases n and, transitively, the producers that become unused (not graph outputs).
  void erase_node_and_dead_producers(Node* n);

  // New node before `pos` (nullptr: at the end of g), outputs get fresh names from hint.
  Node* insert_node(Graph& g, Node* pos, std::string op_type, const std::vector<Value*>& inputs, size_t num_outputs,
                    std::string_view name_hint, std::string domain = "");

  // A new initializer value named after hint (made unique) holding t.
  Value* add_initializer(Graph& g, Tensor t, std::string_view name_hint);
  // Turns a node output into an initializer holding t: the node producing it loses the output
  // (the caller erases the node when all outputs are done). Keeps the value and its name.
  void make_constant(Value* v, Tensor t);
  void remove_initializer(Value* v);  // v must have no uses and not be a graph output
  void set_type(Value* v, Type t);    // shape/type refinement; counts only if it differs
  void remove_value_info(Value* v);

  // For changes no helper above covers (e.g. editing an attribute in place): counts one change.
  void note_change() {
    ++changes_;
    if (log_) log_->whole = true;
  }
  // The same, for a change to node n alone (e.g. an output it no longer produces).
  void note_change(const Node* n) {
    ++changes_;
    touched(n);
    edited(n);
  }

  // Records from now on what changes, in `log` (nullptr: stops).
  void set_log(ChangeLog* log) { log_ = log; }
  // Records from now on the main-graph nodes removed, made and edited, in `h` (nullptr: stops).
  void set_history(NodeHistory* h) { history_ = h; }

 private:
  Value* move_initializer(Value* v, Graph& to);
  void touched(const Node* n);
  void touched(const Graph* g);
  void edited(const Node* n);   // for the history: n (or the main-graph node owning it) changed in place
  void seeded(const Value* v);  // v (an initializer now) is logged when it is the main graph's

  Model& model_;
  int64_t changes_ = 0;
  int64_t nodes_removed_ = 0;
  int64_t nodes_added_ = 0;
  ChangeLog* log_ = nullptr;
  NodeHistory* history_ = nullptr;
};

}  // namespace onnxtrim::ir
