// The graph interpreter: runs a model (or a subgraph) with the registered kernels. If/Loop/Scan
// bodies run through the same code with the enclosing scope visible. A value is freed as soon
// as its last consumer has run.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/runtime_value.h"
#include "support/status.h"

namespace onnxtrim::ops {
struct CustomOpRule;
}  // namespace onnxtrim::ops

namespace onnxtrim::eval {

using ir::RuntimeValue;

struct Scope {
  std::unordered_map<const ir::Value*, RuntimeValue> values;
  const Scope* parent = nullptr;
  const RuntimeValue* find(const ir::Value* v) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->values.find(v);
      if (it != s->values.end()) return &it->second;
    }
    return nullptr;
  }
};

// A node that draws random values: an op the registry marks non-deterministic (RandomNormal,
// RandomUniform, their Like forms, Bernoulli, Multinomial), or a Dropout that may be in
// training mode (its training_mode is not a constant false; is_test = 0 before opset 7).
bool is_random_op(const ir::Node& n);

// What names the same random node in a model and in its simplified form, which keeps node
// names but may rename intermediate values: "node:NAME" when no other node of the model (its
// subgraphs and functions included) has that name, else "value:" and its first output's name.
class RandomIdentity {
 public:
  explicit RandomIdentity(const ir::Model& m);
  std::string of(const ir::Node& n) const;
  // For people: "RandomNormalLike 'noise1'", or "RandomNormalLike (output 'n1')" when unnamed.
  static std::string describe(const ir::Node& n);

 private:
  std::unordered_set<std::string> duplicated_;
};

class Interpreter {
 public:
  explicit Interpreter(const ir::Model& model);
  ~Interpreter();

  // Feeds by graph-input name; inputs that have an initializer may be left out.
  Result<std::vector<RuntimeValue>> run(const std::map<std::string, RuntimeValue>& feeds) const;
  // Runs g with positional inputs; `outer` gives the enclosing scope's values.
  Result<std::vector<RuntimeValue>> run_graph(const ir::Graph& g, std::vector<RuntimeValue> inputs,
                                              const Scope* outer) const;
  // Float kernels accumulate in float where they would otherwise use double (Conv): faster,
  // as ONNX Runtime computes, but less accurate on ill-conditioned models.
  void set_fast_float(bool on) { fast_float_ = on; }
  // Called after every node runs (subgraph nodes too, once per iteration), with the node's
  // inputs (nullptr where absent) and outputs: the float conversion records value ranges here.
  using Observer =
      std::function<void(const ir::Node&, const std::vector<const RuntimeValue*>&, const std::vector<RuntimeValue>&)>;
  void set_observer(Observer o) { observer_ = std::move(o); }
  // The random stream (the check, verify): from now on, each run draws the values of a random
  // node without a `seed` attribute from a generator seeded by (seed, the node's RandomIdentity,
  // how many times the node ran before in this run). Two models that keep a node draw the same
  // values for it; the same model run twice draws the same values. A node with a `seed` draws
  // from its seed, as always. Without a stream, unseeded nodes draw from the system.
  void set_random_seed(uint64_t seed) { random_seed_ = seed; }
  // Fails naming the first node (op, domain) that has no kernel, searching subgraphs too.
  Status check_supported() const;

  // True when n is a custom op given as an ONNX function (--custom-op-schema) whose body the
  // evaluator runs and which draws no random values: fold_constants may fold it like an op.
  bool folds_custom_function(const ir::Node& n) const;

  // Runs a single node on the given inputs (fold_constants uses this).
  // `takeable` (optional): inputs this node reads last, which the kernel may move from.
  Result<std::vector<RuntimeValue>> run_node(const ir::Node& n, const std::vector<const RuntimeValue*>& inputs,
                                             const Scope* outer, std::vector<bool> takeable = {}) const;

 private:
  // run_graph for a function body: an input the call leaves out is absent (the body's nodes
  // read it as a missing optional input) rather than an error.
  Result<std::vector<RuntimeValue>> run_graph(const ir::Graph& g, std::vector<RuntimeValue> inputs, const Scope* outer,
                                              bool omitted_inputs_absent) const;
  struct Plan;
  const Plan& plan_for(const ir::Graph& g) const;
  // A call's copy of a function body with its attribute references resolved (cached per call
  // node and attribute values).
  struct FunctionInstance {
    std::vector<ir::Attribute> attributes;
    std::unique_ptr<ir::Model> model;
  };
  const ir::Graph& function_instance(const ir::Function& f, const ir::Node& call) const;
  // A call of function f (model-local, or a custom op's, --custom-op-schema): its body run on
  // the call's inputs.
  Result<std::vector<RuntimeValue>> run_function(const ir::Function& f, const ir::Node& n,
                                                 const std::vector<const RuntimeValue*>& inputs) const;
  // The function-bodied custom ops of the thread that made the interpreter (ops/custom_ops.h).
  const std::vector<ops::CustomOpRule>* custom_ops_;
  mutable std::unordered_map<const ir::Node*, std::vector<FunctionInstance>> instances_;
  const ir::Model& model_;
  bool fast_float_ = false;
  Observer observer_;
  std::optional<uint64_t> random_seed_;
  uint64_t draw_seed(const ir::Node& n) const;
  mutable std::unique_ptr<RandomIdentity> identity_;
  mutable std::unordered_map<std::string, uint64_t> draws_;  // per identity, in this run
  mutable std::mutex mu_;
  mutable std::unordered_map<const ir::Graph*, std::unique_ptr<Plan>> plans_;
};

}  // namespace onnxtrim::eval
