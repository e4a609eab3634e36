#include "eval/interpreter.h"

#include <algorithm>

#include "support/cancel.h"

#include <new>
#include <stdexcept>
#include <unordered_set>

#include "ir/clone.h"
#include "ir/mapped.h"
#include "ops/custom_ops.h"
#include "ops/random/random_util.h"
#include "ops/registry.h"
#include "support/limits.h"

#include <functional>

namespace onnxtrim::eval {

// Per graph: the nodes in order, and for each value of this graph how many nodes read it
// (a node counts once, whether it reads the value directly or from one of its subgraphs).
struct Interpreter::Plan {
  std::vector<const ir::Node*> nodes;
  std::vector<std::vector<const ir::Value*>> reads;  // per node: distinct values of this graph it reads
  std::vector<bool> has_subgraphs;                   // per node: it owns graph attributes
  std::unordered_map<const ir::Value*, int64_t> use_count;
};

namespace {

void collect_reads(const ir::Graph& owner, const ir::Node& n, std::unordered_set<const ir::Value*>& out) {
  for (const ir::Value* v : n.inputs())
    if (v && v->graph() == &owner) out.insert(v);
  for (const ir::Graph* sg : n.subgraphs())
    sg->for_each_node([&](const ir::Node* inner) { collect_reads(owner, *inner, out); });
  // Subgraph outputs may name outer values directly.
  for (const ir::Graph* sg : n.subgraphs())
    for (const ir::Value* v : sg->outputs())
      if (v && v->graph() == &owner) out.insert(v);
}

}  // namespace

bool is_random_op(const ir::Node& n) {
  if (!n.is_default_domain()) return false;
  if (n.op_type == "Dropout") {
    const ir::Graph* g = n.graph();
    int64_t opset = g && g->model() ? g->model()->opset("") : 0;
    if (opset > 0 && opset < 7) return n.attr_int("is_test", 0) == 0;
    if (opset > 0 && opset < 12) return false;
    const ir::Value* t = n.input(2);
    if (!t) return false;
    const ir::Tensor* c = ir::constant_tensor_of(t);
    return !(c && c->numel() == 1 && c->bytes() && c->bytes()[0] == 0);
  }
  const ops::OpSchema* s = ops::OpRegistry::instance().find_any(n.domain, n.op_type);
  return s && !s->deterministic;
}

RandomIdentity::RandomIdentity(const ir::Model& m) {
  std::unordered_set<std::string> seen;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      if (!n->name.empty() && !seen.insert(n->name).second) duplicated_.insert(n->name);
      for (const ir::Graph* sg : n->subgraphs()) scan(*sg);
    });
  };
  scan(*m.graph);
  for (const auto& f : m.functions)
    if (f.body) scan(*f.body);
}

std::string RandomIdentity::of(const ir::Node& n) const {
  if (!n.name.empty() && !duplicated_.count(n.name)) return "node:" + n.name;
  const ir::Value* o = n.output(0);
  return "value:" + (o ? o->name() : n.name);
}

std::string RandomIdentity::describe(const ir::Node& n) {
  if (!n.name.empty()) return n.op_type + " '" + n.name + "'";
  const ir::Value* o = n.output(0);
  return n.op_type + (o ? " (output '" + o->name() + "')" : "");
}

uint64_t Interpreter::draw_seed(const ir::Node& n) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!identity_) identity_ = std::make_unique<RandomIdentity>(model_);
  std::string id = identity_->of(n);
  uint64_t k = draws_[id]++;
  // FNV-1a over the identity and the draw's index, then splitmix64 with the run's seed.
  uint64_t h = 0xcbf29ce484222325ull;
  auto eat = [&h](unsigned char c) { h = (h ^ c) * 0x100000001b3ull; };
  for (unsigned char c : id) eat(c);
  eat(0);
  for (int i = 0; i < 8; ++i) eat(static_cast<unsigned char>(k >> (8 * i)));
  uint64_t z = h ^ (*random_seed_ + 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Interpreter::Interpreter(const ir::Model& model) : custom_ops_(ops::current_custom_ops()), model_(model) {}

// The function of a custom op given as an ONNX function (--custom-op-schema), when no function of
// the model has the call's name: its body is the op's semantics. nullptr otherwise.
static const ir::Function* interpreter_custom_function(const ir::Model& m, const std::vector<ops::CustomOpRule>* rules,
                                                       const ir::Node& n) {
  for (const auto& f : m.functions)
    if (f.name == n.op_type && f.domain == n.domain) return nullptr;
  const ops::CustomOpRule* c = ops::find_custom_op_in(rules, n.domain, n.op_type, m.opset(n.domain));
  return c ? c->function : nullptr;
}

bool Interpreter::folds_custom_function(const ir::Node& n) const {
  const ir::Function* f = interpreter_custom_function(model_, custom_ops_, n);
  if (!f) return false;
  for (const ir::OpsetImport& o : f->opset_import)
    if ((o.domain.empty() || o.domain == "ai.onnx") && o.version != model_.opset("")) return false;
  bool random = false;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* b) {
      random |= is_random_op(*b) || interpreter_custom_function(model_, custom_ops_, *b) != nullptr;
      for (const ir::Graph* sg : b->subgraphs()) scan(*sg);
    });
  };
  scan(*f->body);
  return !random;
}

Result<std::vector<RuntimeValue>> Interpreter::run_function(const ir::Function& f, const ir::Node& n,
                                                            const std::vector<const RuntimeValue*>& inputs) const {
  bool refs = false;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* b) {
      for (const auto& a : b->attributes) refs |= !a.ref_attr_name.empty();
      for (const ir::Graph* sg : b->subgraphs()) scan(*sg);
    });
  };
  scan(*f.body);
  const ir::Graph* body = f.body.get();
  if (refs) body = &function_instance(f, n);
  std::vector<RuntimeValue> ins;
  for (size_t i = 0; i < f.body->inputs().size(); ++i)
    ins.push_back(i < inputs.size() && inputs[i] ? *inputs[i] : RuntimeValue{});
  return run_graph(*body, std::move(ins), nullptr, /*omitted_inputs_absent=*/true);
}

const ir::Graph& Interpreter::function_instance(const ir::Function& f, const ir::Node& call) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto& list = instances_[&call];
  for (const auto& inst : list) {
    bool same = inst.attributes.size() == call.attributes.size();
    for (size_t i = 0; same && i < call.attributes.size(); ++i)
      same = ir::attributes_equal(inst.attributes[i], call.attributes[i]);
    if (same) return *inst.model->graph;
  }
  FunctionInstance inst;
  inst.attributes = call.attributes;
  inst.model = ir::instantiate_function(f, call);
  list.push_back(std::move(inst));
  return *list.back().model->graph;
}
Interpreter::~Interpreter() = default;

const Interpreter::Plan& Interpreter::plan_for(const ir::Graph& g) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(&g);
  if (it != plans_.end()) return *it->second;
  auto p = std::make_unique<Plan>();
  g.for_each_node([&](const ir::Node* n) {
    p->nodes.push_back(n);
    std::unordered_set<const ir::Value*> reads;
    collect_reads(g, *n, reads);
    p->reads.emplace_back(reads.begin(), reads.end());
    p->has_subgraphs.push_back(!n->subgraphs().empty());
    for (const ir::Value* v : reads) p->use_count[v]++;
  });
  const Plan& ref = *p;
  plans_.emplace(&g, std::move(p));
  return ref;
}

Result<std::vector<RuntimeValue>> Interpreter::run_node(const ir::Node& n,
                                                        const std::vector<const RuntimeValue*>& inputs,
                                                        const Scope* outer, std::vector<bool> takeable) const {
  int64_t opset = model_.opset(n.domain);
  const ops::OpSchema* schema = ops::OpRegistry::instance().find(n.domain, n.op_type, opset);
  if (schema == nullptr || schema->eval == nullptr) {
    // Model-local function?
    for (const auto& f : model_.functions)
      if (f.name == n.op_type && f.domain == n.domain) return run_function(f, n, inputs);
    // A custom op given as a function: its body runs at the model's opsets, so a body importing
    // the default domain at another version is refused rather than run under other rules.
    if (const ir::Function* f = interpreter_custom_function(model_, custom_ops_, n)) {
      for (const ir::OpsetImport& o : f->opset_import)
        if ((o.domain.empty() || o.domain == "ai.onnx") && o.version != model_.opset(""))
          return Status(ErrorCode::kUnsupported, "the function of custom op " + n.op_type + " imports opset " +
                                                     std::to_string(o.version) + ", the model " +
                                                     std::to_string(model_.opset("")))
              .with_node(n.describe());
      return run_function(*f, n, inputs);
    }
    std::string dom = n.domain.empty() ? "ai.onnx" : n.domain;
    std::string why = ops::OpRegistry::instance().find_any(n.domain, n.op_type) != nullptr
                          ? "operator " + n.op_type + " is not defined at " + dom + " opset " + std::to_string(opset)
                          : "the evaluator has no kernel for operator " + n.op_type + " (domain " + dom + ")";
    return Status(ErrorCode::kUnsupported, why).with_node(n.describe());
  }
  ops::KernelContext ctx(n, opset, inputs, [this, outer](const ir::Graph& sg, std::vector<RuntimeValue> in) {
    return run_graph(sg, std::move(in), outer);
  });
  ctx.set_fast_float(fast_float_);
  ctx.set_takeable(std::move(takeable));
  // The run's random stream, for a random node without a seed of its own.
  std::optional<ops::random::StreamSeed> stream;
  if (random_seed_ && n.is_default_domain() && (!schema->deterministic || n.op_type == "Dropout") && !n.attr("seed"))
    stream.emplace(draw_seed(n));
  Status st;
  try {
    charge_step();
    st = schema->eval(ctx);
  } catch (const LimitExceeded& e) {
    // A tensor past the evaluator's limits (support/limits.h): refused before allocating.
    return Status(ErrorCode::kUnsupported, std::string("cannot evaluate: ") + e.what()).with_node(n.describe());
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::kUnsupported, "cannot evaluate: out of memory").with_node(n.describe());
  } catch (const ops::MissingInput& e) {
    const RuntimeValue* v = e.index < inputs.size() ? inputs[e.index] : nullptr;
    return Status(ErrorCode::kInvalidModel,
                  "input " + std::to_string(e.index) +
                      (v ? " is a sequence or an optional where a tensor is needed" : " is missing"))
        .with_node(n.describe());
  } catch (const std::length_error&) {
    return Status(ErrorCode::kUnsupported, "cannot evaluate: a buffer larger than memory can hold")
        .with_node(n.describe());
  }
  if (!st.is_ok()) return st.with_node(n.describe());
  auto& outs = ctx.outputs();
  for (size_t i = 0; i < outs.size(); ++i)
    if (n.output(i) != nullptr && outs[i].kind == RuntimeValue::Kind::kNone)
      return Status(ErrorCode::kInternal, "kernel produced no value for output " + std::to_string(i))
          .with_node(n.describe());
  return std::move(outs);
}

Result<std::vector<RuntimeValue>> Interpreter::run_graph(const ir::Graph& g, std::vector<RuntimeValue> inputs,
                                                         const Scope* outer) const {
  return run_graph(g, std::move(inputs), outer, false);
}

Result<std::vector<RuntimeValue>> Interpreter::run_graph(const ir::Graph& g, std::vector<RuntimeValue> inputs,
                                                         const Scope* outer, bool omitted_inputs_absent) const {
  try {
    charge_step();  // a Loop of 10^12 trips over an empty body still ends under a step limit
  } catch (const LimitExceeded& e) {
    Status st(ErrorCode::kUnsupported, std::string("cannot evaluate: ") + e.what());
    if (g.owner()) st.with_node(g.owner()->describe());
    return st;
  }
  const Plan& plan = plan_for(g);
  Scope scope;
  scope.parent = outer;
  const auto& gin = g.inputs();
  for (size_t i = 0; i < gin.size(); ++i) {
    if (i < inputs.size() && inputs[i].kind != RuntimeValue::Kind::kNone) scope.values[gin[i]] = std::move(inputs[i]);
  }
  for (const ir::Value* v : g.initializers())
    if (!scope.values.count(v)) scope.values[v] = RuntimeValue::of(*v->initializer());
  std::unordered_set<const ir::Value*> absent;
  for (const ir::Value* v : gin) {
    if (scope.values.count(v)) continue;
    if (!omitted_inputs_absent)
      return Status(ErrorCode::kInvalidModel, "no value given for graph input '" + v->name() + "'");
    absent.insert(v);
  }

  std::unordered_map<const ir::Value*, int64_t> remaining = plan.use_count;
  std::vector<const RuntimeValue*> ins;
  for (size_t k = 0; k < plan.nodes.size(); ++k) {
    const ir::Node& n = *plan.nodes[k];
    if (support::cancelled()) return Status(ErrorCode::kInterrupted, "interrupted");
    ins.clear();
    // An input of this scope that this node reads last, in one slot and not from a subgraph,
    // may be taken by the kernel.
    std::vector<bool> takeable(n.num_inputs(), false);
    bool any_takeable = false;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const ir::Value* v = n.input(i);
      if (!v) {
        ins.push_back(nullptr);
        continue;
      }
      const RuntimeValue* rv = scope.find(v);
      if (!rv && absent.count(v)) {
        ins.push_back(nullptr);
        continue;
      }
      if (!rv)
        return Status(ErrorCode::kInvalidModel, "input '" + v->name() + "' has no value").with_node(n.describe());
      ins.push_back(rv);
      auto it = remaining.find(v);
      if (it != remaining.end() && it->second == 1 && !v->is_graph_output() && !plan.has_subgraphs[k] &&
          std::count(n.inputs().begin(), n.inputs().end(), v) == 1 && scope.values.count(v)) {
        takeable[i] = true;
        any_takeable = true;
      }
    }
    auto r = run_node(n, ins, &scope, any_takeable ? std::move(takeable) : std::vector<bool>{});
    if (!r) return r;
    auto& outs = r.value();
    if (observer_) observer_(n, ins, outs);
    for (size_t i = 0; i < n.num_outputs() && i < outs.size(); ++i)
      if (const ir::Value* o = n.output(i)) scope.values[o] = std::move(outs[i]);
    // Free what nobody reads any more.
    for (const ir::Value* v : plan.reads[k]) {
      auto it = remaining.find(v);
      if (it != remaining.end() && --it->second == 0 && !v->is_graph_output()) {
        // A weight read for the last time: its file-backed pages may leave memory, so running
        // a model larger than the machine's memory holds one layer's weights at a time.
        if (v->is_initializer()) {
          auto sv = scope.values.find(v);
          if (sv != scope.values.end() && sv->second.is_tensor() && sv->second.tensor.byte_size() >= (1u << 20))
            ir::release_pages(sv->second.tensor);
        }
        scope.values.erase(v);
      }
    }
  }
  // Outputs leave the scope by move where they are its own and listed once more at most (a
  // Loop body's carried sequence must not be copied each iteration).
  std::vector<RuntimeValue> result;
  const auto& gout = g.outputs();
  for (size_t i = 0; i < gout.size(); ++i) {
    const ir::Value* v = gout[i];
    const RuntimeValue* rv = scope.find(v);
    if (!rv) return Status(ErrorCode::kInvalidModel, "graph output '" + v->name() + "' was not computed");
    auto own = scope.values.find(v);
    bool last = std::find(gout.begin() + static_cast<std::ptrdiff_t>(i) + 1, gout.end(), v) == gout.end();
    if (own != scope.values.end() && last) result.push_back(std::move(own->second));
    else result.push_back(*rv);
  }
  return result;
}

Result<std::vector<RuntimeValue>> Interpreter::run(const std::map<std::string, RuntimeValue>& feeds) const {
  const ir::Graph& g = *model_.graph;
  if (random_seed_) {
    std::lock_guard<std::mutex> lock(mu_);
    draws_.clear();
  }
  std::vector<RuntimeValue> inputs(g.inputs().size());
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    auto it = feeds.find(g.inputs()[i]->name());
    if (it != feeds.end()) inputs[i] = it->second;
  }
  for (const auto& [name, v] : feeds) {
    bool known = false;
    for (const ir::Value* in : g.inputs()) known |= in->name() == name;
    if (!known) return Status(ErrorCode::kUsage, "the model has no input named '" + name + "'");
  }
  return run_graph(g, std::move(inputs), nullptr);
}

namespace {
Status check_graph(const ir::Model& m, const ir::Graph& g, const std::vector<ops::CustomOpRule>* custom) {
  Status st;
  g.for_each_node([&](const ir::Node* n) {
    if (!st.is_ok()) return;
    bool local_function = interpreter_custom_function(m, custom, *n) != nullptr;
    for (const auto& f : m.functions) local_function |= f.name == n->op_type && f.domain == n->domain;
    if (!local_function) {
      int64_t opset = m.opset(n->domain);
      const ops::OpSchema* s = ops::OpRegistry::instance().find(n->domain, n->op_type, opset);
      if (s == nullptr || s->eval == nullptr) {
        std::string dom = n->domain.empty() ? "ai.onnx" : n->domain;
        st = Status(ErrorCode::kUnsupported, "the evaluator has no kernel for operator " + n->op_type + " (domain " +
                                                 dom + ", opset " + std::to_string(opset) + ")")
                 .with_node(n->describe());
        return;
      }
    }
    for (const ir::Graph* sg : n->subgraphs()) {
      Status s2 = check_graph(m, *sg, custom);
      if (!s2.is_ok()) {
        st = s2;
        return;
      }
    }
  });
  return st;
}
}  // namespace

Status Interpreter::check_supported() const { return check_graph(model_, *model_.graph, custom_ops_); }

}  // namespace onnxtrim::eval
