// fold_constants: turns constant computations into initializers that keep the values' names.
//  1. Constant nodes become initializers (unless --keep-constant-nodes).
//  2. Values whose elements shape inference knows exactly (Shape of a static shape, Shape ->
//     Gather/Slice of the known part of a symbolic shape, comparisons decided from facts)
//     become constants, whatever computes them.
//  3. Cones: every node whose inputs are constant, directly or through other such nodes, is
//     evaluated once with the reference evaluator, in topological order. Each connected cone is
//     then judged as a whole by the tensors it leaves behind (folding_policy.h): accepted, it
//     leaves only those tensors (and generator nodes for large splats); refused, its nodes are
//     judged one by one by the size guard, as a node-by-node policy would.
//
// Memory: large outputs are computed straight into the scratch file (see ir::ScratchScope), and
// the pages of large inputs and outputs are released once a node is evaluated, so folding a
// model's weights (the Transposes an export leaves behind them) holds one node's tensors in
// memory at a time, not the model. "Large" is 1 MB, or 16 MB while the outputs this pass has
// kept in the heap total less than 256 MB: the heap is faster for the many medium-sized folds of
// an ordinary model, and the bound stays. What one evaluation may allocate is bounded too
// (support/limits.h), so a generator whose size nothing predicted is refused at its allocation.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "eval/interpreter.h"
#include "ir/mapped.h"
#include "ir/scratch.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/folding_policy.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/pass_util.h"
#include "passes/shape_inference.h"
#include "support/limits.h"

namespace onnxtrim::passes {
namespace {

constexpr size_t kScratchBytes = size_t{1} << 20;
constexpr size_t kHeapTensorBytes = size_t{16} << 20;
constexpr uint64_t kHeapBudget = uint64_t{256} << 20;

// Builds the tensor that propagated facts describe, when they describe it completely.
std::optional<ir::Tensor> tensor_from_facts(const ops::TypeInfo& f) {
  if (!f.is_tensor() || !f.values || !f.shape) return std::nullopt;
  auto vals = f.static_values();
  auto dims = f.static_shape();
  if (!vals || !dims) return std::nullopt;
  int64_t n = checked_numel(*dims);
  if (n != static_cast<int64_t>(vals->size())) return std::nullopt;
  ir::Tensor t(f.elem, *dims);
  bool ok = ops::dispatch(f.elem, ops::kSigned | ops::kUnsigned | ops::kBool, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.mutable_data<T>();
    for (size_t i = 0; i < vals->size(); ++i) p[i] = static_cast<T>((*vals)[i]);
  });
  if (!ok) return std::nullopt;
  return t;
}

// Bytes of every tensor the model stores (initializers and Constant nodes, subgraphs included).
uint64_t model_tensor_bytes(const ir::Graph& g) {
  uint64_t total = 0;
  for (const ir::Value* v : g.initializers()) total += tensor_bytes(*v->initializer());
  g.for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Constant" && n->is_default_domain())
      if (const ir::Tensor* t = ops::FoldContext::constant(n->output(0))) total += tensor_bytes(*t);
    for (const ir::Graph* sg : n->subgraphs()) total += model_tensor_bytes(*sg);
  });
  return total;
}

// One node of a cone and the tensors it computed (one per output; absent outputs stay empty).
struct ConeNode {
  ir::Node* node;
  std::vector<std::optional<ir::Tensor>> outs;
};

// What happens to one cone: nodes kept (they stay as they are), values folded into
// initializers, values replaced by a new ConstantOfShape generator.
struct Plan {
  std::vector<size_t> nodes;  // indices into the cone list, topological
  std::set<size_t> kept;
  std::vector<std::pair<ir::Value*, const ir::Tensor*>> folds;
  std::vector<std::pair<ir::Value*, const ir::Tensor*>> generators;
  int64_t growth = 0;  // bytes added to the model (negative: freed)
  bool changes = false;
  bool over_cap = false;  // leaves a tensor past --no-large-tensor's size
};

class FoldConstants final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    if (!budget_set_) {
      budget_left_ = fold_budget(model_tensor_bytes(*ctx.model.graph), ctx.options.fold_budget);
      budget_set_ = true;
    }
    std::shared_ptr<const ShapeInference> facts = current_facts(ctx);
    bool have_facts = facts != nullptr;
    eval::Interpreter interp(ctx.model);
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || n->num_outputs() == 0) continue;
      if (n->op_type == "Constant" && n->is_default_domain()) {
        if (!ctx.options.keep_constant_nodes) fold_constant_node(*n, interp, rw, ctx);
        continue;
      }
      if (have_facts) try_facts(*n, *facts, rw);
    }
    fold_cones(g, interp, rw, ctx, facts.get());
  }

 private:
  // A Constant node holds its tensor already: as an initializer it takes the same bytes (a
  // sparse one is judged by the size guard, since it becomes dense).
  void fold_constant_node(ir::Node& n, eval::Interpreter& interp, ir::Rewriter& rw, PassContext& ctx) {
    if (!n.output(0)) return;
    auto r = interp.run_node(n, {}, nullptr);
    if (!r || r.value().empty() || !r.value()[0].is_tensor()) {
      if (!r) note(ctx, "fold_constants: could not evaluate " + n.describe() + ": " + r.status().detail());
      return;
    }
    if (n.has_attr("sparse_value")) {
      FoldDecision d = size_guard(0, true, {&r.value()[0].tensor}, ctx.options.size_threshold);
      if (!d.fold) return;
    }
    rw.make_constant(n.output(0), std::move(r.value()[0].tensor));
    erase_if_done(n, rw);
  }

  // Outputs known element by element through value propagation.
  static void try_facts(ir::Node& n, const ShapeInference& si, ir::Rewriter& rw) {
    std::vector<ir::Tensor> outs;
    for (ir::Value* o : n.outputs()) {
      if (!o) return;
      const ops::TypeInfo* f = si.facts(o);
      if (!f) return;
      auto t = tensor_from_facts(*f);
      if (!t) return;
      outs.push_back(std::move(*t));
    }
    if (outs.empty()) return;
    for (size_t i = 0; i < outs.size(); ++i) rw.make_constant(n.output(i), std::move(outs[i]));
    erase_if_done(n, rw);
  }

  // ---------------------------------------------------------------- cones

  void fold_cones(ir::Graph& g, eval::Interpreter& interp, ir::Rewriter& rw, PassContext& ctx,
                  const ShapeInference* si) {
    std::vector<ConeNode> cone;
    std::unordered_map<const ir::Value*, std::pair<size_t, size_t>> made;  // value -> (cone index, output)
    uint64_t held = 0;
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || n->num_outputs() == 0) continue;
      if (n->op_type == "Constant" && n->is_default_domain()) continue;  // a source, never a cone node
      // Ops of ONNX's domain that draw no random values; and custom ops given as functions.
      const bool custom = !n->is_default_domain() && interp.folds_custom_function(*n);
      if ((!custom && (!n->is_default_domain() || !is_pure(*n))) || !n->subgraphs().empty()) continue;
      std::vector<const ir::RuntimeValue*> inputs(n->num_inputs(), nullptr);
      std::vector<ir::RuntimeValue> held_inputs;
      held_inputs.reserve(n->num_inputs());
      bool constant = true;
      uint64_t freed_here = 0;  // bytes of source constants only this node reads
      std::set<const ir::Value*> counted;
      for (size_t i = 0; i < n->num_inputs() && constant; ++i) {
        ir::Value* v = n->input(i);
        if (!v) continue;
        if (auto it = made.find(v); it != made.end()) {
          held_inputs.push_back(ir::RuntimeValue::of(*cone[it->second.first].outs[it->second.second]));
          continue;
        }
        const ir::Tensor* t = ops::FoldContext::constant(v);
        if (!t) {
          constant = false;
          break;
        }
        if (counted.insert(v).second && only_read_by(v, n)) freed_here += tensor_bytes(*t);
        held_inputs.push_back(ir::RuntimeValue::of(*t));
      }
      if (!constant) continue;
      for (size_t i = 0, k = 0; i < n->num_inputs(); ++i)
        if (n->input(i)) inputs[i] = &held_inputs[k++];
      const ops::OpSchema* schema = ops::OpRegistry::instance().find(n->domain, n->op_type, ctx.model.opset(n->domain));
      if ((!schema || !schema->eval) && !custom) {
        note(ctx, "fold_constants: the evaluator has no kernel for " + n->op_type + "; such nodes stay (e.g. " +
                      n->describe() + ")");
        continue;
      }
      // Outputs known to be too large for the cone are not computed at all.
      uint64_t limit = std::max(kConeEvalCap, freed_here);
      if (si) {
        std::optional<uint64_t> predicted = predicted_bytes(*n, *si);
        if (predicted) {
          // Only what stays in the heap counts against the hold cap; large outputs go to scratch.
          uint64_t to_heap = heap_bytes_ < kHeapBudget ? kHeapTensorBytes : kScratchBytes;
          uint64_t heap_part = *predicted < to_heap ? *predicted : 0;
          if (*predicted > limit || held + heap_part > std::max(kConeHoldCap, freed_here)) continue;
        }
      }
      // What one evaluation may allocate is bounded: a generator whose size nothing predicted
      // (ConstantOfShape of 10^12 elements) is refused at its allocation, not computed.
      uint64_t in_bytes = 0;
      for (const ir::RuntimeValue& h : held_inputs) in_bytes += tensor_bytes(h.tensor);
      EvalLimits limits;
      limits.max_tensor_bytes = std::max<uint64_t>({kFoldTensorBytes, 4 * in_bytes, limit});
      limits.max_total_bytes = 8 * limits.max_tensor_bytes;
      Result<std::vector<ir::RuntimeValue>> r = Status(ErrorCode::kInternal, "");
      bool exceeded = false;
      {
        ScopedLimits scope(limits);
        ir::ScratchScope scratch(heap_bytes_ < kHeapBudget ? kHeapTensorBytes : kScratchBytes);
        r = interp.run_node(*n, inputs, nullptr);
        exceeded = scope.exceeded();
      }
      for (const ir::RuntimeValue& h : held_inputs)
        if (h.tensor.byte_size() >= kScratchBytes) ir::release_pages(h.tensor);
      if (!r && exceeded) continue;  // the size guard's business, not worth a note
      if (!r) {
        note(ctx, "fold_constants: could not evaluate " + n->describe() + ": " + r.status().detail());
        continue;
      }
      ConeNode c{n, {}};
      uint64_t bytes = 0;
      bool ok = true;
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        if (!n->output(i)) {
          c.outs.emplace_back();
          continue;
        }
        if (i >= r.value().size() || !r.value()[i].is_tensor()) {
          ok = false;  // sequences and optionals stay nodes
          break;
        }
        bytes += tensor_bytes(r.value()[i].tensor);
        c.outs.emplace_back(std::move(r.value()[i].tensor));
      }
      if (!ok || bytes > limit) continue;
      // Outputs in the scratch file leave memory now (they are read back when needed); the
      // cone's hold cap counts what stays in the heap.
      for (const auto& o : c.outs) {
        if (!o) continue;
        if (ir::file_ref(*o)) {
          ir::release_pages(*o);
        } else {
          held += tensor_bytes(*o);
          heap_bytes_ += o->byte_size();
        }
      }
      for (size_t i = 0; i < n->num_outputs(); ++i)
        if (n->output(i)) made[n->output(i)] = {cone.size(), i};
      cone.push_back(std::move(c));
    }
    if (cone.empty()) return;

    // Connected cones (union-find over nodes linked by computed values).
    std::vector<size_t> parent(cone.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (size_t k = 0; k < cone.size(); ++k)
      for (ir::Value* v : cone[k].node->inputs())
        if (auto it = made.find(v); v && it != made.end()) parent[find(k)] = find(it->second.first);
    std::unordered_map<size_t, size_t> index;
    std::vector<Plan> plans;
    for (size_t k = 0; k < cone.size(); ++k) {
      size_t root = find(k);
      auto [it, fresh] = index.emplace(root, plans.size());
      if (fresh) plans.emplace_back();
      plans[it->second].nodes.push_back(k);
    }
    std::unordered_set<const ir::Node*> in_cone;
    for (const ConeNode& c : cone) in_cone.insert(c.node);
    for (Plan& p : plans) make_plan(p, cone, made, in_cone, ctx);
    // Cheapest first, so that the budget goes as far as it can.
    std::vector<size_t> order(plans.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return plans[a].growth < plans[b].growth; });
    for (size_t i : order) {
      Plan& p = plans[i];
      if (!p.changes) continue;
      if (!p.over_cap && (p.growth <= 0 || static_cast<uint64_t>(p.growth) <= budget_left_)) {
        if (p.growth > 0) budget_left_ -= static_cast<uint64_t>(p.growth);
        apply(p, cone, g, rw, ctx);
      } else {
        node_by_node(p, cone, rw, ctx);
      }
    }
  }

  // Decides, from the last node of the cone to the first, what each needed value becomes.
  void make_plan(Plan& p, std::vector<ConeNode>& cone,
                 const std::unordered_map<const ir::Value*, std::pair<size_t, size_t>>& made,
                 const std::unordered_set<const ir::Node*>& in_cone, PassContext& ctx) {
    std::unordered_set<const ir::Node*> kept_nodes;
    int64_t growth = 0;
    for (auto it = p.nodes.rbegin(); it != p.nodes.rend(); ++it) {
      ConeNode& c = cone[*it];
      ir::Node* n = c.node;
      // Needed outputs: read by a node that stays (outside the cone, in a subgraph, or kept),
      // or graph outputs.
      std::vector<size_t> needed;
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        ir::Value* v = n->output(i);
        if (!v) continue;
        bool need = v->is_graph_output();
        for (const ir::Use& u : v->uses()) need |= !in_cone.count(u.node) || kept_nodes.count(u.node);
        if (need) needed.push_back(i);
      }
      bool keep = false;
      std::vector<std::pair<ir::Value*, const ir::Tensor*>> folds, gens, copies;
      for (size_t i : needed) {
        const ir::Tensor& t = *c.outs[i];
        uint64_t b = tensor_bytes(t);
        if (b <= kTinyBytes || b <= kSplatBytes || !is_splat(t)) {
          folds.emplace_back(n->output(i), &t);
          continue;
        }
        // A copy of a constant the model stores already (torch's Identity of a shared 0/1
        // LayerNorm bias) is stored too: eliminate_duplicate_constants merges the two, and a
        // generator node would cost more than nothing.
        if (copies_a_source(*n, t, cone, made)) {
          copies.emplace_back(n->output(i), &t);
          continue;
        }
        // A large splat stays a generator: this node when it reads only tiny constants,
        // otherwise a new ConstantOfShape.
        bool tiny_reads = true;
        for (ir::Value* in : n->inputs()) {
          if (!in) continue;
          if (auto m = made.find(in); m != made.end())
            tiny_reads &= tensor_bytes(*cone[m->second.first].outs[m->second.second]) <= kTinyBytes;
          else if (const ir::Tensor* s = ops::FoldContext::constant(in)) tiny_reads &= tensor_bytes(*s) <= kTinyBytes;
        }
        if (!tiny_reads && generator_type(t.dtype(), ctx.model.opset("")) && t.dtype() != ir::DataType::kString)
          gens.emplace_back(n->output(i), &t);
        else keep = true;
      }
      if (keep) {
        kept_nodes.insert(n);
        p.kept.insert(*it);
        continue;
      }
      for (auto& f : folds) {
        growth += static_cast<int64_t>(tensor_bytes(*f.second));
        if (ctx.options.max_folded_tensor && tensor_bytes(*f.second) > ctx.options.max_folded_tensor) p.over_cap = true;
      }
      for (auto& f : copies) growth += static_cast<int64_t>(tensor_bytes(*f.second));  // (merged later: a bound)
      for (auto& gen : gens) growth += static_cast<int64_t>(8 * gen.second->rank());
      p.folds.insert(p.folds.end(), folds.begin(), folds.end());
      p.folds.insert(p.folds.end(), copies.begin(), copies.end());
      p.generators.insert(p.generators.end(), gens.begin(), gens.end());
    }
    // Constants the cone frees: read only by its nodes that go.
    std::set<const ir::Value*> seen;
    for (size_t k : p.nodes) {
      if (p.kept.count(k)) continue;
      for (ir::Value* v : cone[k].node->inputs()) {
        if (!v || made.count(v) || !seen.insert(v).second) continue;
        const ir::Tensor* t = ops::FoldContext::constant(v);
        if (!t || v->is_graph_output() || v->is_graph_input()) continue;
        bool only = true;
        for (const ir::Use& u : v->uses()) only &= in_cone.count(u.node) && !kept_nodes.count(u.node);
        if (only) growth -= static_cast<int64_t>(tensor_bytes(*t));
      }
    }
    p.growth = growth;
    p.changes = p.kept.size() < p.nodes.size();
  }

  void apply(Plan& p, std::vector<ConeNode>& cone, ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) {
    for (auto& [v, t] : p.generators) {
      ir::Node* at = v->producer();
      ir::Tensor shape =
          ops::make_tensor<int64_t>({t->rank()}, std::vector<int64_t>(t->dims().begin(), t->dims().end()));
      ir::Value* s = rw.add_initializer(g, std::move(shape), v->name() + "_shape");
      ir::Node* gen = rw.insert_node(g, at, "ConstantOfShape", {s}, 1, v->name() + "_generator");
      ir::Tensor one(t->dtype(), {1});
      size_t w = static_cast<size_t>(ir::dtype_bits(t->dtype()) / 8);
      if (t->numel() > 0) std::memcpy(one.mutable_bytes(), t->bytes(), w);
      else std::memset(one.mutable_bytes(), 0, w);
      ir::Attribute a;
      a.name = "value";
      a.type = ir::AttrType::kTensor;
      a.t = std::make_shared<ir::Tensor>(std::move(one));
      rw.set_attribute(gen, std::move(a));
      rw.set_type(gen->output(0), v->type);
      if (!rw.replace_all_uses_with(v, gen->output(0))) {
        // The name could not move: the value becomes an initializer instead.
        rw.erase_node(gen);
        rw.make_constant(v, *t);
      }
    }
    for (auto& [v, t] : p.folds) rw.make_constant(v, *t);
    for (auto it = p.nodes.rbegin(); it != p.nodes.rend(); ++it) {
      ir::Node* n = cone[*it].node;
      if (p.kept.count(*it) || n->is_dead()) continue;
      if (all_outputs_unused(*n)) rw.erase_node(n);
    }
    (void)ctx;
  }

  // The cone does not fit in the budget: each node is judged alone by the size guard, in
  // topological order (a node whose inputs did not all fold stays).
  void node_by_node(Plan& p, std::vector<ConeNode>& cone, ir::Rewriter& rw, PassContext& ctx) {
    for (size_t k : p.nodes) {
      ConeNode& c = cone[k];
      ir::Node* n = c.node;
      if (n->is_dead()) continue;
      uint64_t freed = 0;
      bool tiny_inputs = true, constant = true;
      std::set<const ir::Value*> counted;
      for (ir::Value* v : n->inputs()) {
        if (!v) continue;
        const ir::Tensor* t = ops::FoldContext::constant(v);
        if (!t) {
          constant = false;
          break;
        }
        uint64_t b = tensor_bytes(*t);
        tiny_inputs &= b <= kTinyBytes;
        if (counted.insert(v).second && only_read_by(v, n)) freed += b;
      }
      if (!constant) continue;
      std::vector<const ir::Tensor*> outs;
      for (const auto& o : c.outs)
        if (o) outs.push_back(&*o);
      if (!size_guard(freed, tiny_inputs, outs, ctx.options.size_threshold).fold) continue;
      for (size_t i = 0; i < n->num_outputs(); ++i)
        if (ir::Value* o = n->output(i)) rw.make_constant(o, *c.outs[i]);
      erase_if_done(*n, rw);
    }
  }

  // ---------------------------------------------------------------- helpers

  // Whether t equals (type, dims, bytes) a stored constant that node n reads, directly or
  // through cone nodes that are copies themselves (Identity chains).
  static bool copies_a_source(const ir::Node& n, const ir::Tensor& t, const std::vector<ConeNode>& cone,
                              const std::unordered_map<const ir::Value*, std::pair<size_t, size_t>>& made) {
    for (const ir::Value* in : n.inputs()) {
      if (!in) continue;
      if (auto m = made.find(in); m != made.end()) {
        const ConeNode& c = cone[m->second.first];
        if (same_tensor(*c.outs[m->second.second], t) && copies_a_source(*c.node, t, cone, made)) return true;
      } else if (const ir::Tensor* s = ops::FoldContext::constant(in)) {
        if (same_tensor(*s, t)) return true;
      }
    }
    return false;
  }

  // Equal non-empty numeric tensors whose bytes are there (string and empty tensors: never).
  // (Asking for the buffer, not the bytes: a deferred tensor is not made to be compared.)
  static bool same_tensor(const ir::Tensor& a, const ir::Tensor& b) {
    return a.byte_size() != 0 && a.buffer() && b.buffer() && a.same_contents(b);
  }

  static bool only_read_by(const ir::Value* v, const ir::Node* n) {
    if (v->is_graph_output() || v->is_graph_input()) return false;  // inputs and outputs stay
    for (const ir::Use& u : v->uses())
      if (u.node != n) return false;
    return true;
  }

  static std::optional<uint64_t> predicted_bytes(const ir::Node& n, const ShapeInference& si) {
    uint64_t predicted = 0;
    for (const ir::Value* o : n.outputs()) {
      if (!o) continue;
      const ops::TypeInfo* f = si.facts(o);
      auto dims = f ? f->static_shape() : std::nullopt;
      if (!dims || !f->is_tensor() || f->elem == ir::DataType::kString) return std::nullopt;
      int64_t numel = checked_numel(*dims);
      if (numel < 0) return UINT64_MAX / 2;  // more elements than int64 counts: never computed
      predicted = std::min<uint64_t>(predicted + ir::dtype_storage_bytes(f->elem, numel), UINT64_MAX / 2);
    }
    return predicted;
  }

  static void erase_if_done(ir::Node& n, ir::Rewriter& rw) {
    for (const ir::Value* o : n.outputs())
      if (o) return;
    rw.erase_node(&n);
  }

  void note(PassContext& ctx, const std::string& msg) {
    if (noted_.insert(msg.substr(0, msg.find(" (e.g."))).second) ctx.warnings->push_back(msg);
  }
  std::set<std::string> noted_;
  bool budget_set_ = false;
  uint64_t heap_bytes_ = 0;   // bytes of computed outputs this pass left in the heap
  uint64_t budget_left_ = 0;  // what cones may still add to the model's tensors
};

}  // namespace

ONNXTRIM_REGISTER_PASS(
    FoldConstants, "fold_constants",
    "Constant nodes become initializers; constant cones are computed and replaced by the tensors they "
    "leave behind within the fold budget (large splats stay generators); refuses random ops, custom "
    "domains, ops without a kernel");

}  // namespace onnxtrim::passes
