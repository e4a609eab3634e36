// The driver: one run of onnxtrim on a model in memory as an ordered list of stages (kStages,
// at the end of this file), each a function of the run's shared state that does nothing unless
// its options ask for it. The API (src/api/api.cc) loads, calls run(), and saves.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "driver/report.h"
#include "convert/convert_float.h"
#include "convert/opset.h"
#include "driver/driver.h"
#include "driver/sizes.h"
#include "eval/interpreter.h"
#include "ir/clone.h"
#include "ir/inline_functions.h"
#include "ir/rewriter.h"
#include "ir/verifier.h"
#include "ops/custom_ops.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "passes/targets.h"
#include "support/cancel.h"
#include "support/platform.h"

namespace onnxtrim::driver {

int exit_code_for(ErrorCode c) {
  switch (c) {
    case ErrorCode::kOk: return kExitOk;
    case ErrorCode::kUsage: return kExitUsage;
    case ErrorCode::kIo: return kExitIo;
    case ErrorCode::kParse: return kExitParse;
    case ErrorCode::kInvalidModel: return kExitInvalid;
    case ErrorCode::kUnsupported: return kExitUnsupported;
    case ErrorCode::kMismatch: return kExitMismatch;
    case ErrorCode::kInterrupted: return kExitInterrupted;
    default: return kExitInternal;
  }
}

void throw_if_error(const Status& st) {
  if (!st.is_ok()) throw Error(exit_code_for(st.code()), st.message());
}

passes::SimplifyOptions simplify_options(const Options& o) {
  passes::SimplifyOptions s;
  s.only = o.passes;
  s.skip = o.skip;
  if (!o.constant_folding) s.skip.push_back("fold_constants");
  s.target = o.target;
  s.strict = o.strict;
  s.max_rounds = o.max_rounds;
  s.fail_on_cap = o.test_convergence;
  s.dims = o.dims;
  s.input_shapes = o.input_shapes;
  s.write_value_info = o.value_info;
  s.size_threshold = o.size_threshold;
  s.fold_budget = o.fold_budget;
  s.max_folded_tensor = o.max_folded_tensor;
  s.keep_constant_nodes = o.keep_constant_nodes;
  s.verify_each_pass = o.verify_each_pass;
  s.verify_samples = o.samples > 0 ? o.samples : 1;
  s.seed = o.seed;
  s.rtol = o.rtol;
  s.atol = o.atol;
  s.record_rewrites = o.graph_diff;  // which pass removed, made and edited which nodes
  return s;
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// --node-reduction-plot and the like: text written whole to `path`, or an Error naming it.
namespace {

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw Error(kExitIo, path + ": cannot write: " + std::strerror(errno));
}

}  // namespace

// Ends the stage begun at t0: its time, and with --profile the peak resident memory since the
// previous stage ended (then reset for the next one).
void end_stage(Report& rep, const Options& o, const char* name, double t0) {
  double sec = now_s() - t0;
  rep.stages.emplace_back(name, sec);
  if (o.profile) rep.profile.push_back(StageProfile{name, sec, platform::peak_resident_bytes(true)});
}

// The unnamed shape of onnxsim's `--overwrite-input-shape 1,3,224,224` belongs to the only input.
std::map<std::string, std::vector<int64_t>> resolve_shapes(const ir::Model& m,
                                                           std::map<std::string, std::vector<int64_t>> shapes) {
  auto it = shapes.find("");
  if (it == shapes.end()) return shapes;
  std::vector<const ir::Value*> ins;
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer()) ins.push_back(v);
  if (ins.size() != 1)
    throw Error(kExitUsage,
                "a shape without an input name (onnxsim's D,D,...) needs a model of one input; this one has " +
                    std::to_string(ins.size()) + " (write NAME:D,D,...)");
  shapes[ins[0]->name()] = it->second;
  shapes.erase("");
  return shapes;
}

namespace {

// The shapes that a graph declares for values other than its inputs: forgotten (value_info) or
// opened (outputs: known dims become unknown, names stay), in every subgraph too, so that shape
// inference proves them again after an input's fixed dim was changed.
void forget_derived_shapes(ir::Graph& g) {
  g.for_each_node([&](ir::Node* n) {
    for (ir::Value* v : n->outputs()) {
      if (!v || v->is_graph_output() || !v->type.has_shape) continue;
      v->type.has_shape = false;
      v->type.dims.clear();
    }
    for (ir::Graph* sg : n->subgraphs()) forget_derived_shapes(*sg);
  });
  for (ir::Value* v : g.outputs()) {
    if (v->is_graph_input() || v->is_initializer() || !v->type.has_shape) continue;
    for (ir::Dim& d : v->type.dims)
      if (d.is_known()) d = ir::Dim{};
  }
}

}  // namespace

// --input-shape / --overwrite-input-shape / --input-shapes: the inputs are declared with the
// given shapes. A dim the model fixes is replaced too, as onnxsim and OnnxSlim do (the user asked
// for that size): the shapes declared downstream of it are then forgotten and proved again, and
// the check runs the original with the same shape. Only a change of rank is refused.
void fix_input_shapes(ir::Model& m, const std::map<std::string, std::vector<int64_t>>& shapes) {
  bool fixed_dim_changed = false;
  for (const auto& [name, dims] : shapes) {
    ir::Value* in = nullptr;
    for (ir::Value* v : m.graph->inputs())
      if (v->name() == name && !v->is_initializer()) in = v;
    if (!in) throw Error(kExitUsage, "--input-shape: the model has no input named '" + name + "'");
    if (!in->type.is_tensor()) throw Error(kExitUsage, "--input-shape: input '" + name + "' is not a tensor");
    if (in->type.has_shape && in->type.rank() != static_cast<int64_t>(dims.size()))
      throw Error(kExitUsage, "--input-shape " + name + ": the model declares rank " + std::to_string(in->type.rank()) +
                                  " (" + in->type.str() + "), the shape given has rank " + std::to_string(dims.size()) +
                                  ": only the sizes of the dims can change");
    for (size_t i = 0; in->type.has_shape && i < dims.size(); ++i) {
      const ir::Dim& d = in->type.dims[i];
      if (d.is_known() && *d.value != dims[i]) fixed_dim_changed = true;
    }
    std::vector<ir::Dim> nd;
    for (int64_t d : dims) nd.push_back(ir::Dim::known(d));
    in->type.has_shape = true;
    in->type.dims = std::move(nd);
  }
  if (fixed_dim_changed) forget_derived_shapes(*m.graph);
}

namespace {

// --dim NAME=V: the result is simplified for that value only, so the inputs declare it.
void fix_named_dims(ir::Model& m, const std::map<std::string, int64_t>& dims) {
  for (ir::Value* v : m.graph->inputs()) {
    if (v->is_initializer() || !v->type.is_tensor() || !v->type.has_shape) continue;
    for (ir::Dim& d : v->type.dims) {
      if (d.is_known() || d.param.empty()) continue;
      auto it = dims.find(d.param);
      if (it != dims.end()) d = ir::Dim::known(it->second);
    }
  }
}

surgery::Request surgery_request(const Options& o) {
  surgery::Request r;
  r.inputs = o.cut_inputs;
  r.outputs = o.cut_outputs;
  r.remove_outputs = o.unused_outputs;
  if (o.add_outputs.size() == 1 && o.add_outputs[0] == "all") r.add_all_outputs = true;
  else r.add_outputs = o.add_outputs;
  r.rename = o.rename;
  if (o.batch == "dynamic") {
    r.batch_dynamic = true;
  } else if (!o.batch.empty()) {
    char* end = nullptr;
    long long n = std::strtoll(o.batch.c_str(), &end, 10);
    if (*end || n < 1) throw Error(kExitUsage, "--batch: needs a size >= 1 or 'dynamic', not '" + o.batch + "'");
    r.batch = n;
  }
  return r;
}

bool uses_dtype(const ir::Graph& g, ir::DataType t) {
  bool found = false;
  for (const ir::Value* v : g.inputs()) found |= v->type.elem == t;
  for (const ir::Value* v : g.initializers()) found |= v->type.elem == t;
  g.for_each_node([&](const ir::Node* n) {
    for (const ir::Value* v : n->outputs()) found |= v && v->type.elem == t;
    for (const ir::Graph* sg : n->subgraphs()) found |= uses_dtype(*sg, t);
  });
  return found;
}

// One run of `m` on the check's kind of inputs with the observer on, when no check runs.
bool observe_once(const ir::Model& m, const Options& o, convert::FloatObservations& seen) {
  eval::Interpreter interp(m);
  if (!interp.check_supported().is_ok()) return false;
  interp.set_fast_float(true);
  std::string err;
  eval::InputSpec given = check_spec(m, m, o, &err);
  if (!err.empty()) return false;
  for (const SizeCandidate& c : size_candidates(m, given)) {
    auto feeds = eval::make_random_inputs(m, c.spec, o.seed);
    if (!feeds) return false;
    interp.set_observer(seen.observer());
    if (interp.run(feeds.value())) return true;
    seen.max_abs.clear();
    seen.node_error.clear();
    seen.ran = false;
  }
  return false;
}

// --dtype: observes one run of the simplified float model (the check of the simplification,
// when the check runs), converts, tidies up with the passes, and checks the result against the
// original at the precision's tolerance. Returns false when the simplification's check failed
// (rep.verification says how).
bool convert_in_place(ir::Model& m, const ir::Model* original, const Options& o, const passes::SimplifyOptions& sopts,
                      Report& rep) {
  ir::DataType target;
  if (!convert::parse_float_dtype(o.dtype, &target)) throw Error(kExitUsage, "--dtype: needs fp16, bf16 or fp32");
  convert::ConvertFloatOptions co;
  co.target = target;
  co.keep_io_types = o.keep_io_types;
  // The check's tolerance: relative L2 error 1e-2 for float16, 5e-2 for bfloat16 (for a
  // conversion back to float32, the precision the model had).
  bool had_bf16 = uses_dtype(*m.graph, ir::DataType::kBFloat16);
  double l2_tol = target == ir::DataType::kBFloat16 || (target == ir::DataType::kFloat && had_bf16) ? 5e-2 : 1e-2;
  co.tolerance = l2_tol;
  double t = now_s();
  convert::FloatObservations seen(m, co);
  std::unique_ptr<eval::Verifier> checker;
  std::string skipped;
  if (original) checker = make_checker(*original, m, o, &skipped, nullptr);
  if (checker) {
    eval::CompareExtras ex;
    ex.observer = seen.observer();
    rep.verification = run_check(*checker, m, o, ex);
    if (!rep.verification.ok) return false;
  } else if (!observe_once(m, o, seen)) {
    rep.warnings.push_back(
        "--dtype: the model could not run, so no value range was observed: only the spec's "
        "types and the shape arithmetic decide what stays in float32");
  }
  auto res = convert::convert_float(m, co, seen.ran ? &seen : nullptr);
  throw_if_error(res.is_ok() ? Status::ok() : res.status());
  m.changed_by = "--dtype conversion";
  Conversion& c = rep.conversion;
  c.dtype = o.dtype;
  c.keep_io_types = o.keep_io_types;
  c.converted_nodes = res.value().converted_nodes;
  c.casts_added = res.value().casts_added;
  c.initializers_converted = res.value().initializers_converted;
  c.ranges_observed = seen.ran;
  for (const auto& k : res.value().kept) c.kept.push_back(Conversion::Kept{k.node, k.reason});
  if (o.run_passes) {
    // Casts that became no-ops, duplicates and what no longer reaches an output go; the types
    // are checked against each op's spec by shape inference on the way.
    passes::SimplifyOptions again = sopts;
    again.verify_each_pass = false;
    auto r2 = passes::simplify(m, again);
    throw_if_error(r2.is_ok() ? Status::ok() : r2.status());
    for (const auto& ps : r2.value().passes)
      for (auto& p : rep.passes)
        if (p.name == ps.name) {
          p.runs += ps.runs;
          p.changes += ps.changes;
          p.nodes_removed += ps.nodes_removed;
          p.seconds += ps.seconds;
        }
  } else {
    throw_if_error(ir::verify_model(m));
  }
  end_stage(rep, o, "convert", t);
  if (checker) {
    double t2 = now_s();
    eval::CompareExtras ex;
    ex.l2_tol = l2_tol;
    ex.cast_float_inputs = !o.keep_io_types;
    rep.verification = run_check(*checker, m, o, ex);
    end_stage(rep, o, "check", t2);
  } else if (!skipped.empty()) {
    rep.verification.skipped = skipped;
    rep.warnings.push_back("check skipped: " + skipped);
  } else {
    rep.verification.skipped = "--no-verify";
  }
  return true;
}

// The passes' record of which nodes each pass run removed, made and edited, as the report's.
std::vector<GraphDiff::Rewrite> rewrites_of(const std::vector<passes::RewriteRecord>& records) {
  auto refs = [](const std::vector<ir::NodeSnapshot>& l) {
    std::vector<GraphDiff::NodeRef> out;
    for (const ir::NodeSnapshot& s : l) out.push_back({s.name, s.op, s.outputs});
    return out;
  };
  std::vector<GraphDiff::Rewrite> out;
  for (const passes::RewriteRecord& r : records)
    out.push_back({r.pass, r.round, refs(r.removed), refs(r.added), refs(r.changed)});
  return out;
}

// The standard-op fusions of a run: how many of each op the passes wrote (the op's count after
// over before), and, for an op the model's opset does not have yet, how many blocks of its form
// the result holds (what --opset N would fuse).
std::vector<Fusion> fusions_of(ir::Model& m, const std::map<std::string, int64_t>& ops_before,
                               const passes::SimplifyOptions& sopts) {
  std::vector<Fusion> out;
  const std::map<std::string, int64_t> ops_after = compute_stats(m).op_histogram;
  auto count = [](const std::map<std::string, int64_t>& h, const std::string& op) {
    auto it = h.find(op);
    return it == h.end() ? int64_t{0} : it->second;
  };
  const int64_t opset = m.opset("");
  for (const passes::StandardOpFusion& f : passes::standard_op_fusions()) {
    Fusion r{f.pass, f.op,      f.opset, std::max<int64_t>(0, count(ops_after, f.op) - count(ops_before, f.op)),
             0,      f.runtimes};
    if (opset < f.opset) {
      // Only the forms this run's passes would fuse (a target or --skip may turn one off).
      r.would_fuse = 0;
      for (const std::string& pass : f.variants)
        if (passes::pass_selected(pass, sopts)) r.would_fuse += passes::count_matches(m, pass, f.opset, sopts);
      if (passes::pass_selected(f.pass, sopts)) r.would_fuse += passes::count_matches(m, f.pass, f.opset, sopts);
    }
    if (r.fused > 0 || r.would_fuse > 0) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

// ---- The stages

namespace {

// What the stages of one run share.
struct Run {
  Run(ir::Model& model, const Options& options, Report& report)
      : m(model), o(options), rep(report), sopts(simplify_options(options)) {}
  ir::Model& m;
  const Options& o;
  Report& rep;
  passes::SimplifyOptions sopts;
  surgery::Request req;
  surgery::Plan plan;
  bool cutting = false;  // --outputs/--inputs/--add-outputs/--rename/--batch/--unused-output
  bool convert = false;  // --dtype
  bool reopset = false;  // --opset
  // The original, for the check and --graph-diff (one copy for both); with --dtype after
  // surgery, the cut model.
  std::unique_ptr<ir::Model> original;
  std::vector<GraphDiff::Rewrite> rewrites;  // the passes' record, for the diff
  bool checked = false;                      // the dtype stage ran the check itself
};

// --input-shape / --dim: the result holds only for the shapes they fix, so its inputs say so;
// the original is kept after them, so that the check runs both models at the user's sizes.
void stage_overrides(Run& r) {
  r.sopts.input_shapes = resolve_shapes(r.m, r.sopts.input_shapes);
  fix_input_shapes(r.m, r.sopts.input_shapes);
  fix_named_dims(r.m, r.sopts.dims);
  const Options& o = r.o;
  if ((o.verify != Options::Verify::kOff || o.graph_diff) &&
      (o.run_passes || r.cutting || r.convert || r.reopset || o.inline_functions))
    r.original = ir::clone_model(r.m);
}

// A whole-model conversion of a stage (--inline-functions, --opset): the model is verified
// before and after it, and the result's Status thrown as the API's Error.
template <typename F>
auto convert_whole(ir::Model& m, const char* changed_by, F&& convert) {
  throw_if_error(ir::verify_model(m));
  auto res = convert(m);
  throw_if_error(res.is_ok() ? Status::ok() : res.status());
  m.changed_by = changed_by;
  throw_if_error(ir::verify_model(m));
  return std::move(res).value();
}

// --inline-functions: before anything reads the graph, so that every later stage sees the
// bodies as ordinary nodes.
void stage_inline(Run& r) {
  if (!r.o.inline_functions) return;
  double t = now_s();
  auto res = convert_whole(r.m, "--inline-functions", [](ir::Model& m) { return ir::inline_functions(m); });
  r.rep.inlining = FunctionInlining{true, res.calls, res.inlined, res.removed, res.opsets_added};
  end_stage(r.rep, r.o, "inline", t);
}

// Surgery before converting and simplifying: nothing is spent on what is cut away.
void stage_surgery(Run& r) {
  if (!r.cutting) return;
  double t = now_s();
  throw_if_error(ir::verify_model(r.m));
  throw_if_error(surgery::apply(r.m, r.req, &r.plan));
  r.m.changed_by = "surgery";
  r.rep.surgery = r.plan.notes;
  end_stage(r.rep, r.o, "surgery", t);
  // With --dtype as well, the simplification and the conversion are checked against the cut
  // model (the surgery's own check needs the float result; it is not run twice).
  if (r.convert && r.original) r.original = ir::clone_model(r.m);
}

// --opset: before the passes, so that they simplify the converted model (and fold what the
// conversion made, such as constants moved from attributes into inputs).
void stage_opset(Run& r) {
  if (!r.reopset) return;
  double t = now_s();
  const int64_t opset = r.o.opset;
  auto res =
      convert_whole(r.m, "--opset conversion", [opset](ir::Model& m) { return convert::convert_opset(m, opset); });
  r.rep.opset =
      OpsetConversion{res.from, res.to, res.nodes_converted, res.nodes_rewritten, res.nodes_expanded, res.notes};
  end_stage(r.rep, r.o, "opset", t);
}

// The passes to their fixed point (passes/pipeline.cc has their order).
void stage_passes(Run& r) {
  const Options& o = r.o;
  Report& rep = r.rep;
  if (!o.run_passes) {
    if (r.cutting) throw_if_error(ir::verify_model(r.m));
    return;
  }
  double t = now_s();
  throw_if_error(ir::verify_model(r.m));
  const std::map<std::string, int64_t> ops_before = compute_stats(r.m).op_histogram;
  auto res = passes::simplify(r.m, r.sopts);
  throw_if_error(res.is_ok() ? Status::ok() : res.status());
  rep.passes.clear();
  for (const passes::PassStats& ps : res.value().passes)
    rep.passes.push_back(PassStats{ps.name, ps.runs, ps.changes, ps.nodes_removed, ps.seconds});
  rep.rounds = res.value().rounds;
  rep.round_stats.clear();
  for (const passes::RoundStats& rs : res.value().round_stats)
    rep.round_stats.push_back(RoundStats{rs.round, rs.nodes, rs.initializer_bytes});
  rep.converged = res.value().converged;
  rep.warnings = res.value().warnings;
  rep.fusions = fusions_of(r.m, ops_before, r.sopts);
  r.rewrites = rewrites_of(res.value().rewrites);
  end_stage(rep, o, "simplify", t);
  if (!o.explain.empty()) {
    rep.explain_node = o.explain;
    rep.explain = passes::explain(r.m, o.explain, r.sopts);
  }
}

// --dtype: after the passes, on the simplified model; checks the simplification before and the
// conversion after, at the precision's tolerance (so the check stage has nothing left to do).
void stage_dtype(Run& r) {
  if (!r.convert) return;
  if (!r.o.run_passes) {
    // The conversion reads every value's type: what shape inference proves, as simplify does.
    throw_if_error(ir::verify_model(r.m));
    passes::InferOptions io;
    io.input_shapes = r.sopts.input_shapes;
    io.dims = r.sopts.dims;
    passes::ShapeInference si(r.m, io);
    throw_if_error(si.run());
    if (!si.errors().empty()) throw_if_error(si.errors().front());
    ir::Rewriter rw(r.m);
    si.write_back(rw, /*add_value_info=*/false);
  }
  convert_in_place(r.m, r.original.get(), r.o, r.sopts, r.rep);
  r.checked = true;
}

// The check: the result against the original (or, after surgery, against the original's values
// at the cut points), on random inputs.
void stage_check(Run& r) {
  if (r.checked) return;
  const Options& o = r.o;
  Report& rep = r.rep;
  if (o.verify == Options::Verify::kOff) {
    rep.verification.skipped = "--no-verify";
    return;
  }
  if (!o.run_passes && !r.cutting && !r.reopset && !o.inline_functions) {
    rep.verification.skipped = "--no-passes (nothing changed)";
    return;
  }
  double t = now_s();
  if (o.progress) o.progress("check", 0, 0);
  std::string skipped;
  // The reference: the original, with the values the result outputs (and those it takes as
  // inputs at the cut points) as its outputs.
  std::unique_ptr<ir::Model> reference;
  std::string compared;
  int stack = 0;
  const surgery::Plan& plan = r.plan;
  if (r.cutting) {
    reference = ir::clone_model(*r.original);
    std::vector<ir::Value*> outs;
    for (const auto& n : plan.outputs) outs.push_back(reference->graph->find_value(n));
    for (const auto& n : plan.carried) outs.push_back(reference->graph->find_value(n));
    for (ir::Value* v : outs)
      if (!v) throw Error(kExitInternal, "surgery: a value of the plan is missing from the original");
    reference->graph->set_outputs(outs);
    // "a, b (as c), ... and 12 more"
    auto names = [&plan](const std::vector<std::string>& list) {
      std::string out;
      for (size_t i = 0; i < list.size() && i < 6; ++i) {
        auto rn = plan.renamed.find(list[i]);
        out += (i ? ", " : "") + list[i] + (rn == plan.renamed.end() ? "" : " (as " + rn->second + ")");
      }
      if (list.size() > 6) out += " and " + std::to_string(list.size() - 6) + " more";
      return out;
    };
    compared = "the original model's values";
    if (!plan.carried.empty())
      compared += " (the original run on random inputs; the result fed the original's values at the cut points " +
                  names(plan.carried) + ")";
    compared += " at " + names(plan.outputs);
    if (plan.old_batch > 0) {
      if (!plan.new_batch) stack = 2;
      else if (*plan.new_batch % plan.old_batch == 0) stack = static_cast<int>(*plan.new_batch / plan.old_batch);
      if (stack == 0) {
        skipped = "--batch " + std::to_string(*plan.new_batch) + " is not a multiple of the original's fixed batch " +
                  std::to_string(plan.old_batch) + ", so samples of the original cannot be stacked into it";
      } else {
        compared += "; one batch of " + std::to_string(stack) + " samples of the original (batch " +
                    std::to_string(plan.old_batch) + "), stacked along axis 0, against the result";
      }
    }
  }
  // A user rewrite rule may write an op the evaluator lacks (ONNX Runtime's com.microsoft.Gelu):
  // in auto mode the check cannot run then, and is skipped saying so; with --verify it is an error.
  if (skipped.empty() && o.verify != Options::Verify::kOn && (!o.rewrite_rules.empty() || !o.rewriters.empty())) {
    eval::Interpreter probe(r.m);
    Status st = probe.check_supported();
    if (!st.is_ok())
      skipped = "the result of the user rewrite rules: " + st.message() + "; the result was written unchecked";
  }
  std::unique_ptr<eval::Verifier> checker;
  if (skipped.empty())
    checker = make_checker(reference ? *reference : *r.original, r.m, o, &skipped, nullptr, r.cutting ? &plan : nullptr,
                           stack);
  if (checker) {
    rep.verification = run_check(*checker, r.m, o);
    rep.verification.compared = compared;
  } else {
    rep.verification.skipped = skipped;
    rep.warnings.push_back("check skipped: " + skipped);
  }
  end_stage(rep, o, "check", t);
}

// --graph-diff and --node-reduction-plot, when the run ends: the original (or the cut model,
// with --dtype after surgery) against the result; the passes' rounds as an SVG.
void stage_report(Run& r) {
  if (r.o.graph_diff) {
    r.rep.graph_diff = diff_graphs(r.original ? *r.original : r.m, r.m);
    r.rep.graph_diff.rewrites = std::move(r.rewrites);
  }
  if (!r.o.node_reduction_plot.empty()) write_text_file(r.o.node_reduction_plot, node_reduction_svg(r.rep.round_stats));
}

struct Stage {
  const char* name;
  void (*run)(Run&);
};

// The stages of a run, in this order (each does nothing unless its options ask for it):
constexpr Stage kStages[] = {
    {"overrides", stage_overrides},  // the user's sizes first: every later stage sees them
    {"inline", stage_inline},        // function bodies become nodes before anything reads them
    {"surgery", stage_surgery},      // cut first: nothing is spent on what goes
    {"opset", stage_opset},          // convert first: the passes simplify what it made
    {"passes", stage_passes},        // the fixed point
    {"dtype", stage_dtype},          // on the simplified model, with its own two checks
    {"check", stage_check},          // the result against the original
    {"report", stage_report},        // the diff and the plot, from the original and the result
};

}  // namespace

void run(ir::Model& m, const Options& o, std::vector<passes::UserPass> user, Report& rep) {
  support::CancelScope cancel(o.cancel);
  // --custom-op-schema: this run's custom ops, seen by shape inference on this thread only.
  ops::CustomOpRules custom_ops;
  for (const std::string& f : o.custom_op_schemas) {
    auto res = ops::load_custom_op_schemas(f);
    if (!res.is_ok()) throw_if_error(res.status());
    for (auto& c : res.value()) {
      for (const auto& prev : custom_ops)
        if (prev.domain == c.domain && prev.op_type == c.op_type)
          throw Error(kExitUsage,
                      c.source + ": describes " + c.domain + "::" + c.op_type + " again (" + prev.source + ")");
      custom_ops.push_back(std::move(c));
    }
  }
  ops::CustomOpScope custom_scope(custom_ops.empty() ? ops::current_custom_ops() : &custom_ops);
  if (o.profile && rep.stages.empty()) platform::peak_resident_bytes(true);  // a model given in memory

  Run r(m, o, rep);
  r.sopts.user_passes = std::move(user);
  throw_if_error(passes::check_pass_names(r.sopts));
  if (o.progress)
    r.sopts.on_pass = [p = o.progress](int round, const std::string& pass) {
      p("round " + std::to_string(round) + ": " + pass, 0, 0);
    };
  if (o.verify_each_pass)
    r.sopts.make_checker = [&o](const ir::Model& original) -> Result<std::unique_ptr<eval::Verifier>> {
      Options forced = o;
      forced.verify = Options::Verify::kOn;
      std::string skipped;
      try {
        return make_checker(original, original, forced, &skipped, nullptr);
      } catch (const Error& e) {
        return Status(e.exit_code() == kExitUsage ? ErrorCode::kUsage : ErrorCode::kUnsupported, e.what());
      }
    };
  r.req = surgery_request(o);
  r.cutting = !r.req.empty();
  r.convert = !o.dtype.empty();
  r.reopset = o.opset != 0;
  for (const Stage& s : kStages) s.run(r);
}

}  // namespace onnxtrim::driver
