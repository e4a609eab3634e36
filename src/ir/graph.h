// The graph IR: Values with one producer and a list of uses, Nodes in topological order,
// Graphs that own both (and nest through graph attributes), and the Model around them.
//
// Low-level link maintenance lives here (the loader and the Rewriter use it); passes mutate
// only through ir::Rewriter, which counts changes.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/attribute.h"
#include "ir/tensor.h"
#include "ir/type.h"

namespace onnxtrim::ir {

class Graph;
class Node;
class Model;

struct Use {
  Node* node;
  int index;
  bool operator==(const Use& o) const { return node == o.node && index == o.index; }
};

class Value {
 public:
  const std::string& name() const { return name_; }
  // A number no other value made in this process has: what outlives a value (facts kept by
  // address) tells it from a new value made at the same address after a purge.
  uint64_t serial() const { return serial_; }
  Graph* graph() const { return graph_; }
  Node* producer() const { return producer_; }
  int producer_output() const { return producer_output_; }
  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  bool is_graph_input() const { return graph_input_; }
  bool is_graph_output() const { return graph_outputs_ > 0; }
  bool is_initializer() const { return initializer_ != nullptr; }
  const Tensor* initializer() const { return initializer_.get(); }
  const std::shared_ptr<Tensor>& initializer_ptr() const { return initializer_; }
  // A value with no producer that is neither input nor initializer (undefined; verifier catches).
  bool is_dead() const { return dead_; }

  Type type;
  bool has_value_info = false;  // declared in graph.value_info
  std::string doc_string;       // ValueInfoProto.doc_string
  std::string info_extra;       // serialized ValueInfoProto fields not interpreted
  uint32_t presence = 0;        // optional proto fields present in the file (onnx_io only)

 private:
  friend class Graph;
  friend class Node;
  uint64_t serial_ = next_serial();
  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  std::string name_;
  Graph* graph_ = nullptr;
  Node* producer_ = nullptr;
  int producer_output_ = -1;
  std::vector<Use> uses_;
  bool graph_input_ = false;
  int graph_outputs_ = 0;
  bool dead_ = false;
  std::shared_ptr<Tensor> initializer_;
};

class Node {
 public:
  std::string op_type;
  std::string domain;  // as written in the file: "" or "ai.onnx" is the default domain
  std::string name;
  std::string doc_string;
  std::string extra;  // serialized NodeProto fields not interpreted
  uint32_t presence = 0;
  std::vector<Attribute> attributes;

  Graph* graph() const { return graph_; }
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  // nullptr when absent (past the end or an empty optional "").
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  Value* output(size_t i) const { return i < outputs_.size() ? outputs_[i] : nullptr; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  bool is_dead() const { return dead_; }
  bool is_default_domain() const { return domain.empty() || domain == "ai.onnx"; }

  const Attribute* attr(std::string_view name) const;
  Attribute* mutable_attr(std::string_view name);
  bool has_attr(std::string_view name) const { return attr(name) != nullptr; }
  int64_t attr_int(std::string_view name, int64_t def) const;
  float attr_float(std::string_view name, float def) const;
  std::string attr_string(std::string_view name, std::string def) const;
  std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> def = {}) const;
  // Graph attributes (If branches, Loop/Scan bodies, any custom graph attribute).
  std::vector<Graph*> subgraphs() const;
  // "name (OpType)" or "#k (OpType)" for an unnamed node: used in messages.
  std::string describe() const;

 private:
  friend class Graph;
  Graph* graph_ = nullptr;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  bool dead_ = false;
  std::list<std::unique_ptr<Node>>::iterator pos_;
};

class Graph {
 public:
  Graph(Model* model, Graph* parent, Node* owner) : model_(model), parent_(parent), owner_(owner) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  // Nested graphs are released one at a time, never by recursion through their owners'
  // attributes: tearing down any nest depth takes constant stack.
  ~Graph();

  std::string name;
  std::string doc_string;
  std::string extra;  // serialized GraphProto fields not interpreted (sparse initializers ...)
  uint32_t presence = 0;

  Model* model() const { return model_; }
  Graph* parent() const { return parent_; }
  Node* owner() const { return owner_; }
  void set_owner(Node* n) { owner_ = n; }

  // ---- values
  // Creates a value named `name` in this scope; the name must not be defined in this scope yet.
  Value* create_value(const std::string& name);
  // Creates a value with a fresh model-unique name derived from hint.
  Value* create_fresh_value(std::string_view hint);
  Value* find_value(std::string_view name) const;  // this scope only
  Value* lookup(std::string_view name) const;      // this scope, then the enclosing ones
  void rename_value(Value* v, const std::string& new_name);
  size_t num_values() const { return by_name_.size(); }

  // ---- inputs, outputs, initializers, value_info (their order is kept)
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  const std::vector<Value*>& initializers() const {
    if (initializers_dirty_) compact_lists();
    return initializers_;
  }
  void add_input(Value* v);
  void add_output(Value* v);
  void set_output(size_t i, Value* v);
  // Replace the whole input / output list (graph surgery). Values leaving the input list stop
  // being graph inputs; a value may be listed as an output more than once.
  void set_inputs(const std::vector<Value*>& vs);
  void set_outputs(const std::vector<Value*>& vs);
  void set_initializer(Value* v, std::shared_ptr<Tensor> t);  // makes v an initializer
  void remove_initializer(Value* v);
  void drop_value_info(Value* v) {
    v->has_value_info = false;
    value_info_dirty_ = true;
  }
  std::vector<Value*>& value_info_order() {
    if (value_info_dirty_) compact_lists();
    return value_info_;
  }
  const std::vector<Value*>& value_info_order() const {
    if (value_info_dirty_) compact_lists();
    return value_info_;
  }

  // ---- nodes
  // Node with the given outputs (created here, in this graph) appended at the end / before pos.
  Node* append_node(std::string op_type, std::string domain = "");
  Node* insert_node_before(Node* pos, std::string op_type, std::string domain = "");
  Node* insert_node_after(Node* pos, std::string op_type, std::string domain = "");
  void move_node_before(Node* n, Node* pos);
  void add_node_input(Node* n, Value* v);  // v may be nullptr (empty optional input)
  void set_node_input(Node* n, size_t i, Value* v);
  void remove_trailing_inputs(Node* n, size_t keep);
  void add_node_output(Node* n, Value* v);  // v must have no producer yet; nullptr for ""
  void set_node_output(Node* n, size_t i, Value* v);
  void trim_trailing_empty_outputs(Node* n);
  // Unlinks the node: drops its uses of its inputs, and its outputs lose their producer and
  // are marked dead (they must have no uses left). Memory is reclaimed by purge().
  void erase_node(Node* n);
  // Drops a value that has no producer, no uses and is no input/output/initializer.
  void erase_value(Value* v);
  // Frees erased nodes and values. Pointers to them become invalid.
  void purge();

  size_t num_nodes() const { return num_nodes_; }
  // Iteration over live nodes in order. Do not erase while iterating; use node_list().
  template <typename F>
  void for_each_node(F&& f) const {
    for (const auto& n : nodes_) f(n.get());
  }
  std::vector<Node*> node_list() const;
  Node* first_node() const { return nodes_.empty() ? nullptr : nodes_.front().get(); }
  // Reorders nodes topologically (stable). Fails naming a node on a cycle.
  bool topological_sort(std::string* cycle_node);

  // Deep copy into `into` (an empty graph): values, nodes, nested graphs. Outer-scope
  // references resolve through `into`'s parents by name.
  void clone_into(Graph& into) const;

 private:
  Model* model_;
  Graph* parent_;
  Node* owner_;
  std::list<std::unique_ptr<Node>> nodes_;
  size_t num_nodes_ = 0;
  std::vector<std::unique_ptr<Node>> graveyard_;
  std::vector<std::unique_ptr<Value>> values_;
  std::unordered_map<std::string, Value*> by_name_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  // Removals from these two lists are lazy (O(1)); the lists are compacted when next read.
  mutable std::vector<Value*> initializers_;
  mutable std::vector<Value*> value_info_;
  mutable bool initializers_dirty_ = false;
  mutable bool value_info_dirty_ = false;
  size_t dead_values_ = 0;
  void compact_lists() const;

  Node* make_node(std::string op_type, std::string domain);
  void drop_use(Value* v, Node* n, int index);
};

struct OpsetImport {
  std::string domain;  // "" for the default domain
  int64_t version = 0;
  uint32_t presence = 0;
};

struct Function {
  std::string name;
  std::string domain;
  std::string overload;
  std::string doc_string;
  std::vector<std::string> attributes;  // names of the attributes the function takes
  // Default values of attributes (FunctionProto.attribute_proto). Informational: the proto
  // fields stay in `extra` for saving.
  std::vector<Attribute> attribute_defaults;
  std::vector<OpsetImport> opset_import;
  std::unique_ptr<Graph> body;  // inputs/outputs are the formal parameters
  std::string extra;            // serialized FunctionProto fields not interpreted
  uint32_t presence = 0;
};

class Model {
 public:
  Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  int64_t ir_version = 0;
  std::vector<OpsetImport> opset_import;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::vector<std::pair<std::string, std::string>> metadata_props;
  std::string extra;  // serialized ModelProto fields not interpreted (training_info, unknown)
  uint32_t presence = 0;
  std::unique_ptr<Graph> graph;
  std::vector<Function> functions;
  std::string path;  // file it was loaded from, for messages
  // The last pass or stage that changed the graph ("pass fuse_concat_splat", "--opset"): what
  // an internal error about a broken graph names. Empty for a model as loaded.
  std::string changed_by;
  // The file's own value names or initializer types are not what the check before writing asks
  // (a name that is not UTF-8, an initializer declared with another type than it holds: ONNX
  // Runtime and python3-onnx load such files): they are written back as they came, and that
  // check looks at the graph's structure only.
  bool unchecked_names_and_types = false;

  // Version of `domain` this model imports ("" and "ai.onnx" are the same); 0 when absent.
  int64_t opset(std::string_view domain) const;
  // A name used nowhere in the model yet, derived from hint; reserved on return.
  std::string unique_name(std::string_view hint);
  void reserve_name(const std::string& n) { used_names_.insert(n); }
  bool name_used(const std::string& n) const { return used_names_.count(n) != 0; }

 private:
  std::unordered_set<std::string> used_names_;
  uint64_t name_counter_ = 0;
};

// The tensor v holds when it is an initializer, or the output of a Constant node with a tensor
// `value`; nullptr otherwise.
const Tensor* constant_tensor_of(const Value* v);

}  // namespace onnxtrim::ir
