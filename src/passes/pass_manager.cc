#include "passes/pass_manager.h"
#include "passes/targets.h"

#include "support/cancel.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>

#include "eval/verify.h"
#include "ir/clone.h"
#include "ir/mapped.h"
#include "ir/verifier.h"
#include "passes/pass.h"
#include "passes/pipeline.h"
#include "passes/shape_inference.h"
#include "passes/user_rules.h"
#include "support/limits.h"

namespace onnxtrim::passes {

PassRegistry& PassRegistry::instance() {
  static PassRegistry r;
  return r;
}

void PassRegistry::add(PassInfo info) {
  std::string name = info.name;
  passes_[name] = std::move(info);
}

const PassInfo* PassRegistry::find(std::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

std::vector<const PassInfo*> PassRegistry::all() const {
  std::vector<const PassInfo*> out;
  for (const auto& [k, v] : passes_) out.push_back(&v);
  // Listed passes by their place in the list; others (tests') after them, by name.
  std::stable_sort(out.begin(), out.end(), [](const PassInfo* a, const PassInfo* b) {
    return pipeline_position(a->name) < pipeline_position(b->name);
  });
  return out;
}

std::vector<std::string> default_pipeline() {
  std::vector<std::string> out;
  for (const PassInfo* p : PassRegistry::instance().all())
    if (p->default_on) out.push_back(p->name);
  return out;
}

bool pass_selected(const PassInfo& p, const SimplifyOptions& opts, const TargetInfo* target) {
  auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (listed(opts.skip, p.name)) return false;
  if (!opts.only.empty()) return listed(opts.only, p.name);
  const bool off_for_target = target && listed(target->disable, p.name);
  return (p.default_on && !off_for_target) || listed(opts.enable, p.name) || (target && listed(target->enable, p.name));
}

bool pass_selected(const std::string& name, const SimplifyOptions& opts) {
  const PassInfo* p = PassRegistry::instance().find(name);
  return p && pass_selected(*p, opts, opts.target.empty() ? nullptr : find_target(opts.target));
}

Status check_pass_names(const SimplifyOptions& opts) {
  auto known = [](const std::string& n) { return PassRegistry::instance().find(n) != nullptr; };
  for (const auto* list : {&opts.only, &opts.skip})
    for (const auto& n : *list)
      if (n.rfind("user:", 0) == 0) {
        // A user rule of this run (--rewrite-rules, the APIs' callbacks), by its pass name.
        std::string all;
        bool found = false;
        for (const UserPass& u : opts.user_passes) {
          all += (all.empty() ? "" : ", ") + u.name;
          found = found || u.name == n;
        }
        if (!found)
          return Status(
              ErrorCode::kUsage,
              "unknown user rule '" + n + "' (" +
                  (all.empty() ? std::string("this run has no user rules") : "this run's user rules: " + all) + ")");
      } else if (!known(n)) {
        std::string all;
        for (const PassInfo* p : PassRegistry::instance().all()) all += (all.empty() ? "" : ", ") + p->name;
        return Status(ErrorCode::kUsage, "unknown pass '" + n + "' (known: " + all + ")");
      }
  return Status::ok();
}

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Runs one pass over g and then over the subgraphs of g's nodes (collected after g is done,
// so that a node erased by the pass takes its subgraphs with it).
void run_on_graph_tree(Pass& pass, ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) {
  pass.run(g, rw, ctx);
  g.purge();
  std::vector<ir::Graph*> subs;
  g.for_each_node([&](ir::Node* n) {
    for (ir::Graph* sg : n->subgraphs()) subs.push_back(sg);
  });
  for (ir::Graph* sg : subs) run_on_graph_tree(pass, *sg, rw, ctx);
}

// The constants of g and its subgraphs past 1 MB give back the pages a pass mapped in reading
// them (mapped weights: a pass that looks at the first bytes of every weight, to see whether it
// is a splat or an identity element, faults in a large folio of each): between passes nothing
// holds a weight's bytes in memory, so that a model larger than memory is simplified in memory
// bounded by what one pass works on. Nothing for a tensor in the heap. One call per mapping,
// and none when the pass handed out no mapped bytes.
void collect_large_constants(const ir::Graph& g, std::vector<const ir::Tensor*>& out) {
  constexpr size_t kLarge = size_t{1} << 20;
  for (const ir::Value* v : g.initializers())
    if (v->initializer() && v->initializer()->byte_size() >= kLarge) out.push_back(v->initializer());
  g.for_each_node([&](const ir::Node* n) {
    for (const ir::Attribute& a : n->attributes)
      if (a.type == ir::AttrType::kTensor && a.t && a.t->byte_size() >= kLarge) out.push_back(a.t.get());
    for (const ir::Graph* sg : n->subgraphs()) collect_large_constants(*sg, out);
  });
}

void release_constant_pages(const ir::Graph& g) {
  if (!ir::take_mapped_touched()) return;
  std::vector<const ir::Tensor*> large;
  collect_large_constants(g, large);
  ir::release_pages(large);
}

// Facts as text for comparing two inferences: a dim or element built from a fresh symbol (an
// unknown made during inference, named differently by each run) prints as "?".
std::string facts_text(const ops::TypeInfo* t) {
  if (!t) return "nothing";
  auto expr = [](const symbolic::Expr& e) {
    bool fresh = false;
    (void)e.symbols(&fresh);
    return fresh ? std::string("?") : e.str();
  };
  std::string r = std::to_string(static_cast<int>(t->kind)) + ":" + std::to_string(static_cast<int>(t->elem));
  if (t->shape) {
    r += " [";
    for (const auto& e : *t->shape) r += expr(e) + ",";
    r += "]";
  }
  if (t->values) {
    r += " {";
    for (const auto& e : *t->values) r += expr(e) + ",";
    r += "}";
  }
  if (t->inner) r += " of " + facts_text(t->inner.get());
  return r;
}

// With verify_ir, after a pass that changed the model: the facts the passes share, brought up
// to date with the logged changes, against a new inference of the whole model. A difference
// is a change some rewrite made without the rewriter's knowledge.
Status check_shared_facts(FactsCache& facts, const ir::Model& model, const InferOptions& io) {
  std::shared_ptr<const ShapeInference> kept = facts.lookup();
  if (!kept) kept = facts.refreshed();
  if (!kept) return Status::ok();
  ShapeInference fresh(model, io);
  if (!fresh.run().is_ok()) return Status::ok();
  Status out = Status::ok();
  std::function<void(const ir::Graph&)> walk = [&](const ir::Graph& g) {
    auto check = [&](const ir::Value* v) {
      if (!v || !out.is_ok()) return;
      std::string a = facts_text(kept->facts(v)), b = facts_text(fresh.facts(v));
      if (a != b)
        out = Status(ErrorCode::kInternal,
                     "the facts of '" + v->name() + "' brought up to date say " + a + ", inferred afresh " + b);
    };
    for (const ir::Value* v : g.inputs()) check(v);
    for (const ir::Value* v : g.initializers()) check(v);
    g.for_each_node([&](const ir::Node* n) {
      for (const ir::Value* v : n->outputs()) check(v);
      for (const ir::Graph* sg : n->subgraphs()) walk(*sg);
    });
  };
  walk(*model.graph);
  return out;
}

// Nodes and initializer bytes of g and its subgraphs, for the report's per-round series.
void add_round_stats(const ir::Graph& g, RoundStats& r) {
  g.for_each_node([&](const ir::Node* n) {
    ++r.nodes;
    for (const ir::Graph* sg : n->subgraphs()) add_round_stats(*sg, r);
  });
  for (const ir::Value* v : g.initializers())
    r.initializer_bytes += static_cast<int64_t>(v->initializer()->byte_size());
}

// The record of one pass run from its history: the live nodes it made or edited, in graph order.
RewriteRecord rewrite_record(const ir::NodeHistory& h, const ir::Graph& g, const std::string& pass, int round) {
  RewriteRecord r{pass, round, h.removed, {}, {}};
  g.for_each_node([&](const ir::Node* n) {
    if (h.added.count(n)) r.added.push_back(ir::snapshot_of(*n));
    else if (h.changed.count(n)) r.changed.push_back(ir::snapshot_of(*n));
  });
  return r;
}

RoundStats round_stats_of(const ir::Graph& g, int round) {
  RoundStats r;
  r.round = round;
  add_round_stats(g, r);
  return r;
}

}  // namespace

std::shared_ptr<const ShapeInference> FactsCache::refreshed() {
  if (!stored_ || log_.whole) return nullptr;
  if (stored_.use_count() == 1)  // nobody else holds them (the pass that asked last has ended)
    std::const_pointer_cast<ShapeInference>(stored_)->refresh(log_.nodes, &log_.initializers);  // made non-const
  else stored_ = stored_->refreshed(log_.nodes, &log_.initializers);
  store(stored_);
  return stored_;
}

std::shared_ptr<const ShapeInference> current_facts(PassContext& ctx) {
  if (ctx.facts) {
    if (auto si = ctx.facts->lookup()) return si;
    if (auto si = ctx.facts->refreshed()) return si;
  }
  InferOptions io;
  io.input_shapes = ctx.options.input_shapes;
  io.dims = ctx.options.dims;
  auto si = std::make_shared<ShapeInference>(ctx.model, std::move(io));
  std::shared_ptr<const ShapeInference> result;
  if (si->run().is_ok()) result = std::move(si);
  if (ctx.facts) ctx.facts->store(result);  // a failure is remembered too, until a change
  return result;
}

Result<SimplifyResult> simplify(ir::Model& model, const SimplifyOptions& opts) {
  OT_RETURN_IF_ERROR(check_pass_names(opts));
  OT_RETURN_IF_ERROR(ir::check_subgraph_depth(model));
  const TargetInfo* target = opts.target.empty() ? nullptr : find_target(opts.target);
  if (!opts.target.empty() && !target)
    return Status(ErrorCode::kUsage, "unknown target '" + opts.target + "' (known: " + target_names() + ")");
  auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  InferOptions infer_opts;
  infer_opts.input_shapes = opts.input_shapes;
  infer_opts.dims = opts.dims;
  FactsCache facts;
  std::vector<const PassInfo*> pipeline;
  for (const PassInfo* p : PassRegistry::instance().all())
    if (pass_selected(*p, opts, target)) pipeline.push_back(p);
  const bool infers =
      std::any_of(pipeline.begin(), pipeline.end(), [](const PassInfo* p) { return p->name == "infer_shapes"; });
  {
    // Before anything changes: conflicting overrides are the user's error; a node whose input
    // types, attributes or sizes the spec forbids (its op rule says so) stops the run; and the
    // file's declarations about intermediate values give way to what is proved, so that no
    // pass reasons from an exporter's hint (shape_inference.h). The facts stay valid through
    // the write-back: the first pass that asks for facts gets them.
    auto si = std::make_shared<ShapeInference>(model, infer_opts);
    OT_RETURN_IF_ERROR(si->run());
    if (!si->errors().empty()) return si->errors().front();
    // With infer_shapes in the pipeline, the value_info it would add in its first run is added
    // here (then it finds these facts written and writes nothing again).
    const bool value_info = infers && opts.write_value_info;
    ir::Rewriter rw(model);
    si->write_back(rw, value_info);
    facts.store(si);
    facts.note_written(si.get(), value_info);
  }
  SimplifyResult result;
  std::vector<std::unique_ptr<Pass>> instances;
  for (const PassInfo* p : pipeline) {
    instances.push_back(p->make());
    result.passes.push_back(PassStats{p->name, 0, 0, 0, 0});
  }
  // User rewrite rules (user_rules.h), after the built-in passes: all of them, less those
  // skipped (--skip user:NAME); with user rules named in --passes, only those.
  const bool only_users =
      std::any_of(opts.only.begin(), opts.only.end(), [](const std::string& n) { return n.rfind("user:", 0) == 0; });
  for (const UserPass& u : opts.user_passes) {
    if (listed(opts.skip, u.name) || (only_users && !listed(opts.only, u.name))) continue;
    instances.push_back(u.make());
    result.passes.push_back(PassStats{u.name, 0, 0, 0, 0});
  }

  std::unique_ptr<ir::Model> original;
  std::unique_ptr<eval::Verifier> checker;
  if (opts.verify_each_pass) {
    original = ir::clone_model(model);
    Result<std::unique_ptr<eval::Verifier>> v = Status(ErrorCode::kInternal, "");
    if (opts.make_checker) {
      v = opts.make_checker(*original);
    } else {
      eval::VerifyOptions vo;
      vo.samples = opts.verify_samples;
      vo.seed = opts.seed;
      vo.inputs.dims = opts.dims;
      vo.rtol = opts.rtol;
      vo.atol = opts.atol;
      v = eval::Verifier::create(*original, vo);
    }
    if (!v) return std::move(v).take_status();
    checker = std::move(v).value();
  }

  PassContext ctx{model, opts, &result.warnings, &facts};
  result.converged = false;
  result.round_stats.push_back(round_stats_of(*model.graph, 0));
  for (int round = 0; round < opts.max_rounds; ++round) {
    int64_t round_changes = 0;
    for (size_t i = 0; i < instances.size(); ++i) {
      if (support::cancelled()) return Status(ErrorCode::kInterrupted, "interrupted");
      if (opts.on_pass) opts.on_pass(round + 1, result.passes[i].name);
      ir::Rewriter rw(model);
      ir::NodeHistory history;
      if (opts.record_rewrites) rw.set_history(&history);
      double t0 = now_s();
      facts.begin(&rw);
      try {
        run_on_graph_tree(*instances[i], *model.graph, rw, ctx);
        facts.end();
        release_constant_pages(*model.graph);
      } catch (const UserRuleFailure& e) {
        return e.status();
      } catch (const LimitExceeded& e) {
        // A pass computed a tensor past the evaluator's limits outside the places that catch
        // them (fold_constants bounds its own work): an error, never an out-of-memory kill.
        return Status(ErrorCode::kUnsupported, "pass " + result.passes[i].name + ": " + e.what());
      }
      PassStats& st = result.passes[i];
      st.seconds += now_s() - t0;
      if (!history.empty()) {
        RewriteRecord rec = rewrite_record(history, *model.graph, st.name, round + 1);
        if (!rec.removed.empty() || !rec.added.empty() || !rec.changed.empty())
          result.rewrites.push_back(std::move(rec));
      }
      st.runs++;
      st.changes += rw.changes();
      st.nodes_removed += rw.nodes_removed() - rw.nodes_added();
      round_changes += rw.changes();
      if (rw.changes() > 0) model.changed_by = "pass " + st.name;
      if (opts.verify_ir) {
        Status vs = ir::verify_model(model);
        if (vs.is_ok() && rw.changes() > 0) vs = check_shared_facts(facts, model, infer_opts);
        if (!vs.is_ok()) return Status(ErrorCode::kInternal, "after pass " + st.name + ": " + vs.message());
      }
      if (checker && rw.changes() > 0) {
        auto d = checker->compare_with(model);
        if (!d) return Status(d.status().code(), "after pass " + st.name + ": " + d.status().message());
        if (!d.value().ok)
          return Status(ErrorCode::kMismatch, "pass " + st.name + " changed the numbers: " + d.value().why);
      }
    }
    result.rounds = round + 1;
    result.round_stats.push_back(round_stats_of(*model.graph, round + 1));
    if (round_changes == 0) {
      result.converged = true;
      break;
    }
  }
  {
    // What is written is what is proved: whatever the passes left in value_info and body
    // outputs is replaced by the facts of the final graph (the shared ones, brought up to date).
    if (std::shared_ptr<const ShapeInference> si = current_facts(ctx)) {
      ir::Rewriter rw(model);
      si->write_back(rw, /*add_value_info=*/false);
    }
  }
  // A broken graph stops here, naming the pass that changed it last, before any check or writer
  // reads it (every writer verifies again: onnx_io::save_model).
  OT_RETURN_IF_ERROR(ir::verify_for_write(model));
  if (opts.strict)
    for (const auto& w : result.warnings)
      if (w.rfind(opts.target + ":", 0) == 0) return Status(ErrorCode::kUnsupported, w + " (--strict)");
  if (!result.converged && opts.fail_on_cap)
    return Status(ErrorCode::kInternal, "the pipeline did not reach a fixed point in " +
                                            std::to_string(opts.max_rounds) + " rounds (--test-convergence)");
  return result;
}

}  // namespace onnxtrim::passes
