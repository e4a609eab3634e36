// Graph surgery (surgery.h): cut, extra outputs, batch, rename — in that order, so that every
// name a user gives refers to the original model, and --rename acts on the result's interface.
#include "surgery/surgery.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_set>

#include "ir/rewriter.h"
#include "passes/shape_inference.h"

namespace onnxtrim::surgery {
namespace {

Status usage(const std::string& msg) { return Status(ErrorCode::kUsage, msg); }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Where a name that the main graph lacks lives (for the error), or "".
std::string where_else(const ir::Model& m, const std::string& name) {
  std::string found;
  std::function<void(const ir::Graph&)> walk = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      for (const ir::Graph* sg : n->subgraphs()) {
        if (!found.empty()) return;
        if (sg->find_value(name)) found = "it is a value inside a subgraph of node '" + n->describe() + "'";
        else walk(*sg);
      }
    });
  };
  walk(*m.graph);
  for (const auto& f : m.functions)
    if (found.empty() && f.body && f.body->find_value(name))
      found = "it is a value inside the local function '" + f.name + "'";
  return found;
}

Result<ir::Value*> main_value(const ir::Model& m, const std::string& option, const std::string& name) {
  ir::Value* v = m.graph->find_value(name);
  if (v && !v->is_dead()) return v;
  std::string else_ = where_else(m, name);
  if (!else_.empty())
    return usage("--" + option + ": '" + name + "' is not a value of the main graph (" + else_ +
                 "); only main-graph values can be cut at or marked");
  return usage("--" + option + ": the model has no value named '" + name + "'");
}

// The type to declare for v: what the file says if it is complete, else what inference proved.
std::optional<ir::Type> declared_type(const passes::ShapeInference& si, const ir::Value* v) {
  const ops::TypeInfo* f = si.facts(v);
  std::optional<ir::Type> t = f ? si.written_type(*f) : std::nullopt;
  if (t) return t;
  if (v->type.is_known() && (!v->type.is_tensor() || v->type.elem != ir::DataType::kUndefined)) return v->type;
  return std::nullopt;
}

// Main-graph values that nodes of g (a subgraph, recursively) read from the main graph.
void outer_reads(const ir::Graph& g, const ir::Graph* main, std::vector<ir::Value*>& out) {
  g.for_each_node([&](const ir::Node* n) {
    for (ir::Value* v : n->inputs())
      if (v && v->graph() == main) out.push_back(v);
    for (const ir::Graph* sg : n->subgraphs()) outer_reads(*sg, main, out);
  });
}

// Nodes of the main graph that the given values need, and the graph inputs they reach.
void reach(const ir::Graph& main, const std::vector<ir::Value*>& from, std::unordered_set<const ir::Node*>& nodes,
           std::set<const ir::Value*>* inputs) {
  std::vector<ir::Value*> work = from;
  std::unordered_set<const ir::Value*> seen;
  while (!work.empty()) {
    ir::Value* v = work.back();
    work.pop_back();
    if (!v || !seen.insert(v).second) continue;
    if (v->is_graph_input() && !v->is_initializer() && inputs) inputs->insert(v);
    ir::Node* n = v->producer();
    if (!n || !nodes.insert(n).second) continue;
    for (ir::Value* in : n->inputs()) work.push_back(in);
    for (const ir::Graph* sg : n->subgraphs()) outer_reads(*sg, &main, work);
  }
}

// ---- --inputs / --outputs

Status cut(ir::Model& m, const Request& r, Plan& plan) {
  ir::Graph& g = *m.graph;
  passes::ShapeInference si(m);
  (void)si.run();  // unknown facts are no error here; a value whose type stays unknown is (below)

  std::vector<ir::Value*> new_inputs, new_outputs;
  for (const auto& name : r.inputs) {
    auto v = main_value(m, "inputs", name);
    if (!v) return v.status();
    if (v.value()->is_initializer())
      return usage("--inputs: '" + name + "' is an initializer (a constant), not a computed value");
    if (std::find(new_inputs.begin(), new_inputs.end(), v.value()) == new_inputs.end()) new_inputs.push_back(v.value());
  }
  for (const auto& name : r.outputs) {
    auto v = main_value(m, "outputs", name);
    if (!v) return v.status();
    new_outputs.push_back(v.value());
  }
  // Types first (inference ran on the whole original).
  std::vector<ir::Type> in_types;
  for (ir::Value* v : new_inputs) {
    if (v->is_graph_input()) {
      in_types.push_back(v->type);
      continue;
    }
    auto t = declared_type(si, v);
    if (!t || !t->is_known())
      return usage("--inputs: the type of '" + v->name() + "' cannot be inferred, so it cannot become a graph input");
    in_types.push_back(*t);
  }
  for (ir::Value* v : new_outputs)
    if (!v->is_graph_output() || !v->type.is_known()) {
      auto t = declared_type(si, v);
      if (t) v->type = *t;
    }

  // Cut points: the value leaves its producer (which gets a fresh, unread output) and becomes a
  // graph input; every use, in subgraphs too, keeps reading it.
  for (size_t i = 0; i < new_inputs.size(); ++i) {
    ir::Value* v = new_inputs[i];
    if (v->is_graph_input()) continue;
    if (ir::Node* p = v->producer()) {
      ir::Value* fresh = g.create_fresh_value(v->name() + "_cut");
      fresh->type = v->type;
      g.set_node_output(p, static_cast<size_t>(v->producer_output()), fresh);
    }
    v->type = in_types[i];
    if (v->has_value_info) g.drop_value_info(v);
    plan.carried.push_back(v->name());
  }
  if (!new_outputs.empty()) g.set_outputs(new_outputs);

  std::vector<ir::Value*> outs(g.outputs().begin(), g.outputs().end());
  std::unordered_set<const ir::Node*> live;
  if (!r.inputs.empty()) {
    std::set<ir::Value*> kept(new_inputs.begin(), new_inputs.end());
    for (ir::Value* o : outs) {
      std::unordered_set<const ir::Node*> nodes;
      std::set<const ir::Value*> reached;
      reach(g, {o}, nodes, &reached);
      for (const ir::Value* in : reached)
        if (!kept.count(const_cast<ir::Value*>(in)))
          return usage("--inputs: output '" + o->name() + "' still depends on graph input '" + in->name() +
                       "', which --inputs does not keep (add it to --inputs, or cut below it)");
    }
  }
  std::set<const ir::Value*> reached_inputs;
  reach(g, outs, live, &reached_inputs);

  ir::Rewriter rw(m);
  std::vector<ir::Node*> nodes = g.node_list();
  int64_t removed = 0;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (live.count(*it)) continue;
    // Its outputs are read by no live node (else it would be live): detach them from dead
    // readers erased before it, and from cut-away fresh values.
    rw.erase_node(*it);
    ++removed;
  }
  // Graph inputs: those listed, else the original ones that still reach an output; inputs
  // backed by an initializer stay while read.
  std::vector<ir::Value*> inputs;
  std::vector<std::string> dropped;
  std::vector<ir::Value*> old_inputs = g.inputs();
  if (!r.inputs.empty()) {
    inputs = new_inputs;
    for (ir::Value* v : old_inputs)
      if (v->is_initializer() && (v->has_uses() || v->is_graph_output()) &&
          std::find(inputs.begin(), inputs.end(), v) == inputs.end())
        inputs.push_back(v);
  } else {
    for (ir::Value* v : old_inputs) {
      if (reached_inputs.count(v) || (v->is_initializer() && (v->has_uses() || v->is_graph_output())) ||
          v->is_graph_output())
        inputs.push_back(v);
      else dropped.push_back(v->name());
    }
  }
  g.set_inputs(inputs);
  for (ir::Value* v : old_inputs)
    if (!v->is_graph_input() && !v->has_uses() && !v->is_graph_output() && !v->producer()) {
      if (v->is_initializer()) g.remove_initializer(v);
      g.erase_value(v);
    }
  for (ir::Value* v : std::vector<ir::Value*>(g.initializers()))
    if (!v->is_graph_input() && !v->has_uses() && !v->is_graph_output()) {
      g.remove_initializer(v);
      g.erase_value(v);
    }
  g.purge();

  std::string note = "cut:";
  if (!r.inputs.empty()) note += " inputs " + join(r.inputs) + ";";
  if (!r.outputs.empty()) note += " outputs " + join(r.outputs) + ";";
  note += " " + std::to_string(removed) + " nodes removed";
  if (!dropped.empty()) note += "; graph inputs no longer needed: " + join(dropped);
  plan.notes.push_back(note);
  return Status::ok();
}

// ---- --add-outputs

Status add_outputs(ir::Model& m, const Request& r, Plan& plan) {
  ir::Graph& g = *m.graph;
  passes::ShapeInference si(m);
  (void)si.run();
  std::vector<ir::Value*> add;
  int64_t untyped = 0;
  if (r.add_all_outputs) {
    g.for_each_node([&](const ir::Node* n) {
      for (ir::Value* o : n->outputs())
        if (o && !o->is_graph_output()) add.push_back(o);
    });
  } else {
    for (const auto& name : r.add_outputs) {
      auto v = main_value(m, "add-outputs", name);
      if (!v) return v.status();
      if (!v.value()->is_graph_output() && std::find(add.begin(), add.end(), v.value()) == add.end())
        add.push_back(v.value());
    }
  }
  int64_t added = 0;
  for (ir::Value* v : add) {
    auto t = declared_type(si, v);
    if (!t) {
      if (r.add_all_outputs) {
        ++untyped;
        continue;
      }
      return usage("--add-outputs: the type of '" + v->name() + "' cannot be inferred, so it cannot be an output");
    }
    v->type = *t;
    if (v->has_value_info) g.drop_value_info(v);
    g.add_output(v);
    plan.outputs.push_back(v->name());
    ++added;
  }
  std::string note = "add-outputs: " + std::to_string(added) + " values marked as graph outputs";
  if (untyped) note += " (" + std::to_string(untyped) + " left out: their types cannot be inferred)";
  plan.notes.push_back(note);
  return Status::ok();
}

// ---- --batch

bool mentions(const symbolic::Expr& e, const std::string& sym) {
  auto s = e.symbols();
  return std::find(s.begin(), s.end(), sym) != s.end();
}

bool shape_mentions(const ops::TypeInfo* f, const std::string& sym) {
  if (!f || !f->shape) return false;
  for (const auto& d : *f->shape)
    if (mentions(d, sym)) return true;
  return false;
}

std::string facts_str(const ops::TypeInfo* f) {
  if (!f || !f->shape) return "?";
  std::string s = "[";
  for (size_t i = 0; i < f->shape->size(); ++i) s += (i ? "," : "") + (*f->shape)[i].str();
  return s + "]";
}

// Shapes declared inside the graph may hold the fixed batch: they go (inference rewrites them),
// element types stay.
void forget_shapes(ir::Graph& g, bool main) {
  auto strip = [](ir::Value* v) {
    if (v && v->type.is_tensor() && v->type.rank() >= 1) {  // a scalar cannot hold the batch
      v->type.has_shape = false;
      v->type.dims.clear();
    }
  };
  g.for_each_node([&](ir::Node* n) {
    for (ir::Value* o : n->outputs())
      if (o && !(main && o->is_graph_output())) strip(o);
    for (ir::Graph* sg : n->subgraphs()) {
      for (ir::Value* in : sg->inputs()) strip(in);
      for (ir::Value* o : sg->outputs()) strip(o);
      forget_shapes(*sg, false);
    }
  });
}

// Frees the fixed leading dim `b` of the main graph's inputs as symbol `sym`. Reshapes whose
// constant target shape starts with b while their input leads with the batch are rewritten to
// copy that dim (0): at batch b they compute the same, and every sample stays apart. Any other
// node that reads a batched value and writes one that no longer follows the batch refuses.
Status free_batch(ir::Model& m, int64_t b, const std::string& sym, const std::string& option, Plan& plan) {
  ir::Graph& g = *m.graph;
  for (ir::Value* v : g.inputs()) {
    if (v->is_initializer() || !v->type.is_tensor() || v->type.rank() < 1) continue;
    ir::Dim& d = v->type.dims[0];
    if (d.is_known() && *d.value == b) {
      d = ir::Dim::symbol(sym);
      plan.batched_inputs.push_back(v->name());
    }
  }
  forget_shapes(g, true);
  for (ir::Value* o : g.outputs())
    if (o->type.is_tensor() && o->type.rank() >= 1 && !o->is_graph_input()) o->type.dims[0] = ir::Dim{};

  ir::Rewriter rw(m);
  int64_t rewritten = 0;
  for (size_t guard = 0;; ++guard) {
    passes::ShapeInference si(m);
    Status st = si.run();
    if (!st.is_ok()) return st;
    ir::Node* target = nullptr;
    g.for_each_node([&](ir::Node* n) {
      if (target || n->op_type != "Reshape" || !n->is_default_domain() || n->attr_int("allowzero", 0) != 0) return;
      const ops::TypeInfo* x = si.facts(n->input(0));
      const ops::TypeInfo* s = n->input(1) ? si.facts(n->input(1)) : nullptr;
      if (!x || !x->shape || x->shape->empty() || (*x->shape)[0].str() != sym || !s) return;
      auto vals = s->static_values();
      if (vals && !vals->empty() && (*vals)[0] == b) target = n;
    });
    if (!target || guard > g.num_nodes()) break;
    auto vals = *si.facts(target->input(1))->static_values();
    vals[0] = 0;
    ir::Tensor t = ir::Tensor::from_vector<int64_t>(ir::DataType::kInt64, {static_cast<int64_t>(vals.size())}, vals);
    ir::Value* shape = rw.add_initializer(g, std::move(t), target->input(1)->name() + "_batch");
    rw.set_input(target, 1, shape);
    ++rewritten;
  }

  passes::ShapeInference si(m);
  Status st = si.run();
  if (!st.is_ok()) return st;
  std::string culprit;
  g.for_each_node([&](const ir::Node* n) {
    if (!culprit.empty() || n->op_type == "Shape") return;
    const ir::Value* batched = nullptr;
    for (const ir::Value* in : n->inputs())
      if (in && !batched && shape_mentions(si.facts(in), sym)) batched = in;
    if (!batched) return;
    for (const ir::Value* o : n->outputs()) {
      const ops::TypeInfo* f = o ? si.facts(o) : nullptr;
      if (!f || !f->is_tensor() || !f->shape || shape_mentions(f, sym)) continue;
      bool in_values = false;
      if (f->values)
        for (const auto& e : *f->values) in_values |= mentions(e, sym);
      if (in_values) continue;
      culprit = "node '" + n->describe() + "' reads '" + batched->name() + "' " + facts_str(si.facts(batched)) +
                ", whose leading dim is the batch, but its output '" + o->name() + "' has shape " + facts_str(f) +
                ", which does not follow it (the export baked batch size " + std::to_string(b) + " into this node)";
      return;
    }
  });
  if (culprit.empty())
    for (const ir::Value* o : g.outputs()) {
      const ops::TypeInfo* f = si.facts(o);
      if (f && f->is_tensor() && f->shape && !f->shape->empty() && (*f->shape)[0].str() == sym) continue;
      culprit = "graph output '" + o->name() + "' would have shape " + facts_str(f) +
                ", which does not lead with the batch" +
                (o->producer() ? " (it comes from node '" + o->producer()->describe() + "')" : std::string());
      break;
    }
  if (!culprit.empty())
    return usage("--" + option + ": cannot free the batch dim (" + std::to_string(b) +
                 ") that the export fixed: " + culprit);
  for (ir::Value* o : g.outputs())
    if (o->type.is_tensor() && o->type.rank() >= 1 && !o->is_graph_input()) o->type.dims[0] = ir::Dim::symbol(sym);
  plan.old_batch = b;
  plan.batch_symbol = sym;
  plan.notes.push_back(
      "batch: the fixed batch " + std::to_string(b) + " of " + join(plan.batched_inputs) + " freed as '" + sym + "'" +
      (rewritten ? "; " + std::to_string(rewritten) + " Reshape target shapes now copy the batch (0)" : std::string()));
  return Status::ok();
}

Status batch(ir::Model& m, const Request& r, Plan& plan) {
  ir::Graph& g = *m.graph;
  const std::string option = r.batch_dynamic ? "batch dynamic" : "batch " + std::to_string(*r.batch);
  // The fixed leading dims of the inputs: one size, or the request is ambiguous.
  std::optional<int64_t> fixed;
  std::string fixed_from;
  std::set<std::string> params;
  bool any = false;
  for (const ir::Value* v : g.inputs()) {
    if (v->is_initializer() || !v->type.is_tensor() || !v->type.has_shape) continue;
    for (const ir::Dim& d : v->type.dims)
      if (!d.param.empty()) params.insert(d.param);
    if (v->type.rank() < 1) continue;
    any = true;
    const ir::Dim& d = v->type.dims[0];
    if (!d.is_known()) continue;
    if (r.batch && *d.value == *r.batch) continue;
    if (fixed && *fixed != *d.value)
      return usage("--" + option + ": the inputs '" + fixed_from + "' and '" + v->name() +
                   "' have different fixed leading dims (" + std::to_string(*fixed) + " and " +
                   std::to_string(*d.value) + "): which one is the batch?");
    fixed = *d.value;
    fixed_from = v->name();
  }
  if (!any) return usage("--" + option + ": the model has no graph input of known rank >= 1");
  if (!fixed && r.batch_dynamic) plan.notes.push_back("batch: no graph input has a fixed leading dim; nothing to free");
  if (fixed) {
    std::string sym = "batch";
    for (int i = 1; params.count(sym); ++i) sym = "batch_" + std::to_string(i);
    Status st = free_batch(m, *fixed, sym, option, plan);
    if (!st.is_ok()) return st;
  }
  if (r.batch) {
    // Every leading dim (symbolic, unknown or the freed one) becomes N, and so does its symbol
    // wherever an input uses it.
    std::set<std::string> syms;
    for (ir::Value* v : g.inputs()) {
      if (v->is_initializer() || !v->type.is_tensor() || v->type.rank() < 1) continue;
      if (!v->type.dims[0].is_known() && !v->type.dims[0].param.empty()) syms.insert(v->type.dims[0].param);
      v->type.dims[0] = ir::Dim::known(*r.batch);
    }
    for (ir::Value* v : g.inputs()) {
      if (v->is_initializer() || !v->type.has_shape) continue;
      for (ir::Dim& d : v->type.dims)
        if (!d.is_known() && syms.count(d.param)) d = ir::Dim::known(*r.batch);
    }
    if (fixed)
      for (ir::Value* o : g.outputs())
        if (o->type.is_tensor() && o->type.rank() >= 1 && o->type.dims[0].param == plan.batch_symbol)
          o->type.dims[0] = ir::Dim::known(*r.batch);
    plan.new_batch = *r.batch;
    plan.notes.push_back("batch: the leading dim of every input fixed to " + std::to_string(*r.batch));
  }
  return Status::ok();
}

// ---- --rename

Status rename(ir::Model& m, const Request& r, Plan& plan) {
  ir::Graph& g = *m.graph;
  std::vector<std::pair<ir::Value*, std::string>> todo;
  std::set<std::string> olds, news;
  for (const auto& [from, to] : r.rename) {
    ir::Value* v = g.find_value(from);
    if (!v || v->is_dead() || (!v->is_graph_input() && !v->is_graph_output()))
      return usage("--rename: '" + from + "' is not a graph input or output" +
                   (v && !v->is_dead() ? " (only the model's interface is renamed)" : std::string()));
    if (!olds.insert(from).second) return usage("--rename: '" + from + "' is renamed twice");
    if (!news.insert(to).second) return usage("--rename: two values would be named '" + to + "'");
    todo.emplace_back(v, to);
  }
  for (const auto& [v, to] : todo)
    if (m.name_used(to) && !olds.count(to))
      return usage("--rename: the name '" + to + "' is already used in the model");
  // Two steps, so that swaps (a=b,b=a) work. Uses in subgraphs read the same value.
  std::vector<std::string> orig;
  for (auto& [v, to] : todo) {
    orig.push_back(v->name());
    g.rename_value(v, m.unique_name(v->name() + "__renaming"));
  }
  for (size_t i = 0; i < todo.size(); ++i) {
    g.rename_value(todo[i].first, todo[i].second);
    plan.renamed[orig[i]] = todo[i].second;
  }
  plan.notes.push_back("rename: " + std::to_string(todo.size()) + " graph inputs/outputs renamed");
  return Status::ok();
}

}  // namespace

Status apply(ir::Model& m, const Request& r, Plan* plan) {
  Plan local;
  Plan& p = plan ? *plan : local;
  for (const ir::Value* o : m.graph->outputs()) p.outputs.push_back(o->name());
  Request kept = r;
  if (!r.remove_outputs.empty()) {
    // onnxsim's unused_output: the cut of --outputs to every output (of --outputs, else of the
    // graph) but these; what only they needed goes with them.
    std::vector<std::string> outs = r.outputs.empty() ? p.outputs : r.outputs;
    for (const auto& name : r.remove_outputs) {
      auto it = std::find(outs.begin(), outs.end(), name);
      if (it == outs.end())
        return usage("--unused-output: '" + name + "' is not an output of the " +
                     (r.outputs.empty() ? std::string("model") : std::string("--outputs list")) + " (outputs: " +
                     [&] {
                       std::string all;
                       for (const auto& o : outs) all += (all.empty() ? "" : ", ") + o;
                       return all;
                     }() +
                     ")");
      outs.erase(it);
    }
    if (outs.empty()) return usage("--unused-output: every output would be removed; at least one must stay");
    kept.outputs = outs;
  }
  if (!kept.inputs.empty() || !kept.outputs.empty()) {
    Status st = cut(m, kept, p);
    if (!st.is_ok()) return st;
    p.outputs.clear();
    for (const ir::Value* o : m.graph->outputs()) p.outputs.push_back(o->name());
  }
  if (r.add_all_outputs || !r.add_outputs.empty()) {
    Status st = add_outputs(m, r, p);
    if (!st.is_ok()) return st;
  }
  if (r.batch || r.batch_dynamic) {
    Status st = batch(m, r, p);
    if (!st.is_ok()) return st;
  }
  if (!r.rename.empty()) {
    Status st = rename(m, r, p);
    if (!st.is_ok()) return st;
  }
  return Status::ok();
}

}  // namespace onnxtrim::surgery
