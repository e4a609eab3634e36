// The public C++ API (include/onnxtrim/onnxtrim.hpp) over the library: options into the
// internal option structs, the run (load, simplify, check, save) and its report. The CLI, the C
// API and the Python package all come through here.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/internal.h"
#include "api/report.h"
#include "eval/interpreter.h"
#include "eval/sizes.h"
#include "eval/verify.h"
#include "ir/clone.h"
#include "ir/inline_functions.h"
#include "ir/printer.h"
#include "ir/rewriter.h"
#include "ir/scratch.h"
#include "ir/verifier.h"
#include "ops/custom_ops.h"
#include "onnx_io/onnx_io.h"
#include "passes/pass_manager.h"
#include "passes/rule.h"
#include "passes/targets.h"
#include "passes/user_rules.h"
#include "passes/shape_inference.h"
#include "convert/opset.h"
#include "convert/convert_float.h"
#include "support/cancel.h"
#include "support/limits.h"
#include "support/platform.h"
#include "support/text.h"
#include "surgery/surgery.h"

#ifndef ONNXTRIM_VERSION
#define ONNXTRIM_VERSION "dev"
#endif

namespace onnxtrim {

const char* version() { return ONNXTRIM_VERSION; }

Error::Error(int exit_code, const std::string& message)
    : std::runtime_error(support::printable(message)), exit_code_(exit_code) {}

struct Model::Impl {
  std::unique_ptr<ir::Model> model;
  std::string path;  // the file it was loaded from ("" when parsed from memory)
};

struct ModelAccess {
  static Model wrap(std::unique_ptr<ir::Model> m) {
    auto impl = std::make_unique<Model::Impl>();
    impl->model = std::move(m);
    return Model(std::move(impl));
  }
};

namespace api {

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

// Runs f; a tensor past the evaluator's limits (support/limits.h) that no inner layer turned
// into a Status (the interpreter and the pass manager do) becomes the same "unsupported" error
// for every front end (CLI, C API, Python), never an internal error.
template <typename F>
auto within_limits(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const LimitExceeded& e) {
    throw Error(kExitUnsupported, std::string("cannot evaluate: ") + e.what());
  }
}

// An error of the model that `path` holds names the file first, as the CLI's messages do.
[[noreturn]] void rethrow_naming(const Error& e, const std::string& path) {
  std::string msg = e.what();
  if (!path.empty() && e.exit_code() != kExitUsage && msg.rfind(path, 0) != 0) msg = path + ": " + msg;
  throw Error(e.exit_code(), msg);
}

ir::Model& ir_model(Model& m) { return *m.impl().model; }
const ir::Model& ir_model(const Model& m) { return *m.impl().model; }

// The user rewrite rules of o (--rewrite-rules files, callbacks) as passes.
std::vector<passes::UserPass> user_passes(const Options& o) {
  std::vector<passes::UserPass> out;
  for (const std::string& f : o.rewrite_rules) {
    auto r = passes::load_rewrite_rules(f);
    if (!r.is_ok()) throw_if_error(r.status());
    for (auto& u : r.value()) out.push_back(std::move(u));
  }
  for (const RewriteCallback& cb : o.rewriters) {
    if (cb.name.empty() || !cb.rewrite) throw Error(kExitUsage, "a rewrite callback needs a name and a function");
    auto fn = cb.rewrite;
    out.push_back(passes::callback_rule(cb.name, [fn](const ir::Model& current) -> std::unique_ptr<ir::Model> {
      Model copy = ModelAccess::wrap(ir::clone_model(current));
      if (!fn(copy)) return nullptr;
      return std::move(copy.impl().model);
    }));
  }
  return out;
}

passes::SimplifyOptions simplify_options(const Options& o) {
  passes::SimplifyOptions s;
  s.user_passes = user_passes(o);
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
  return s;
}

onnx_io::SaveOptions save_options(const Options& o, const std::string& out_path) {
  onnx_io::SaveOptions s;
  // Options::set refuses a bad location; a C++ caller may also have assigned one directly.
  if (!o.external_location.empty()) {
    std::string why = onnx_io::external_location_problem(o.external_location, out_path);
    if (!why.empty()) throw Error(kExitUsage, "--external-location: '" + o.external_location + "' " + why);
  }
  if (o.external_data == "always") s.external = onnx_io::SaveOptions::ExternalData::kAlways;
  else if (o.external_data == "never") s.external = onnx_io::SaveOptions::ExternalData::kNever;
  else if (o.external_data == "auto") s.external = onnx_io::SaveOptions::ExternalData::kAuto;
  else throw Error(kExitUsage, "--external-data: needs auto, always or never, not '" + o.external_data + "'");
  s.location = o.external_location;
  s.size_threshold = o.external_threshold;
  if (o.progress) s.progress = [p = o.progress](uint64_t d, uint64_t t) { p("saving", d, t); };
  return s;
}

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// --node-reduction-plot and the like: text written whole to `path`, or an Error naming it.
void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw Error(kExitIo, path + ": cannot write: " + std::strerror(errno));
}

// Ends the stage begun at t0: its time, and with --profile the peak resident memory since the
// previous stage ended (then reset for the next one).
void end_stage(Report& rep, const Options& o, const char* name, double t0) {
  double sec = now_s() - t0;
  rep.stages.emplace_back(name, sec);
  if (o.profile) rep.profile.push_back(StageProfile{name, sec, platform::peak_resident_bytes(true)});
}

int64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
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
    throw Error(kExitUsage, "a shape without an input name (onnxsim's D,D,...) needs a model of one input; this one has " +
                                std::to_string(ins.size()) + " (write NAME:D,D,...)");
  shapes[ins[0]->name()] = it->second;
  shapes.erase("");
  return shapes;
}

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
      throw Error(kExitUsage, "--input-shape " + name + ": the model declares rank " +
                                  std::to_string(in->type.rank()) + " (" + in->type.str() + "), the shape given has rank " +
                                  std::to_string(dims.size()) + ": only the sizes of the dims can change");
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

// Multiply-adds of one run of the main graph with every input dim fixed (the check's inputs):
// MatMul/Gemm/Conv families by their reductions, everything else one per output element.
double estimate_macs(const ir::Model& m, const eval::InputSpec& spec) {
  passes::InferOptions io;
  io.dims = spec.dims;
  io.input_shapes = spec.shapes;
  for (const auto& [name, v] : spec.pinned)
    if (v.is_tensor()) io.input_shapes[name] = v.tensor.dims();
  passes::ShapeInference si(m, io);
  if (!si.run().is_ok()) return 0;
  auto numel = [&](const ir::Value* v) -> double {
    if (!v) return 0;
    const ops::TypeInfo* t = si.facts(v);
    if (!t) return 0;
    auto s = t->static_shape();
    if (!s) return 0;
    double n = 1;
    for (int64_t d : *s) n *= static_cast<double>(d);
    return n;
  };
  auto dim = [&](const ir::Value* v, int64_t axis) -> double {
    const ops::TypeInfo* t = v ? si.facts(v) : nullptr;
    if (!t) return 0;
    auto s = t->static_shape();
    if (!s || s->empty()) return 0;
    if (axis < 0) axis += static_cast<int64_t>(s->size());
    if (axis < 0 || axis >= static_cast<int64_t>(s->size())) return 0;
    return static_cast<double>((*s)[static_cast<size_t>(axis)]);
  };
  double macs = 0;
  m.graph->for_each_node([&](const ir::Node* n) {
    double out = n->num_outputs() ? numel(n->output(0)) : 0;
    const std::string& op = n->op_type;
    if ((op == "Conv" || op == "ConvInteger" || op == "QLinearConv") && n->num_inputs() > 1) {
      const ir::Value* w = n->input(op == "QLinearConv" ? 3 : 1);
      double per = dim(w, 0) > 0 ? numel(w) / dim(w, 0) : 0;
      macs += out * per;
    } else if (op == "ConvTranspose" && n->num_inputs() > 1) {
      const ir::Value* w = n->input(1);
      double per = dim(w, 0) > 0 ? numel(w) / dim(w, 0) : 0;
      macs += numel(n->input(0)) * per;
    } else if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul" || op == "FusedMatMul") {
      macs += out * dim(n->input(0), -1);
    } else if (op == "Gemm") {
      double k = n->attr_int("transA", 0) ? dim(n->input(0), 0) : dim(n->input(0), 1);
      macs += out * k;
    } else {
      macs += out;
    }
  });
  return macs;
}

}  // namespace

eval::InputSpec::Fill input_fill(const Options& o) {
  if (o.input_fill == "ones") return eval::InputSpec::Fill::kOnes;
  if (o.input_fill == "zeros") return eval::InputSpec::Fill::kZeros;
  if (o.input_fill == "arange") return eval::InputSpec::Fill::kArange;
  return eval::InputSpec::Fill::kRandom;
}

namespace {

// What fixes the sizes of the check's inputs: --dim, --input-shape, --input, and a dim the
// candidate declares fixed. The other symbolic dims are free: eval::size_candidates sizes them.
eval::InputSpec check_spec(const ir::Model& m, const ir::Model& candidate, const Options& o, std::string* error,
                           const std::map<std::string, std::string>& renamed = {}) {
  eval::InputSpec spec;
  spec.dims = o.dims;
  spec.fill = input_fill(o);
  // A dim the candidate declares fixed (simplified for one size) where the original has a
  // symbol: that size.
  for (const ir::Value* v : m.graph->inputs()) {
    if (v->is_initializer() || !v->type.has_shape) continue;
    auto rn = renamed.find(v->name());
    const std::string& cname = rn == renamed.end() ? v->name() : rn->second;
    for (const ir::Value* c : candidate.graph->inputs()) {
      if (c->name() != cname || !c->type.has_shape || c->type.rank() != v->type.rank()) continue;
      for (size_t i = 0; i < v->type.dims.size(); ++i) {
        const ir::Dim& d = v->type.dims[i];
        if (!d.is_known() && !d.param.empty() && c->type.dims[i].is_known() && !spec.dims.count(d.param))
          spec.dims[d.param] = *c->type.dims[i].value;
      }
    }
  }
  spec.shapes = resolve_shapes(m, o.input_shapes);
  for (const auto& [k, v] : resolve_shapes(m, o.check_input_shapes)) spec.shapes[k] = v;
  for (const auto& p : o.input_values) {
    Status st = eval::pin_input(m, p, spec);
    if (!st.is_ok()) {
      *error = st.message();
      return spec;
    }
  }
  return spec;
}

std::string gmac_str(double macs) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", macs / 1e9);
  return b;
}

}  // namespace

// Makes the checker of `original`: runs it on random inputs. In auto mode anything that keeps
// the check from running is a reason to skip it (returned in *skipped); with --verify it is an
// error.
std::unique_ptr<eval::Verifier> make_checker(const ir::Model& original, const ir::Model& simplified, const Options& o,
                                             std::string* skipped, double* macs_out,
                                             const surgery::Plan* plan = nullptr, int stack = 0) {
  bool forced = o.verify == Options::Verify::kOn;
  auto give_up = [&](const Status& st, const std::string& advice) -> std::unique_ptr<eval::Verifier> {
    if (forced) throw_if_error(st);
    *skipped = st.message() + advice;
    return nullptr;
  };
  {
    eval::Interpreter probe(original);
    Status st = probe.check_supported();
    if (!st.is_ok()) return give_up(st, "; the result was written unchecked");
  }
  // The free symbolic dims grow until the original runs (a convolution stack needs a minimum
  // image size, a spectrogram a minimum signal length); dims that look like a batch stay 1.
  std::string err;
  eval::InputSpec given =
      check_spec(original, simplified, o, &err, plan ? plan->renamed : std::map<std::string, std::string>{});
  if (!err.empty()) throw Error(kExitUsage, err);
  const std::vector<eval::SizeCandidate> cands = eval::size_candidates(original, given);
  std::vector<Status> failures;
  Status last;
  for (size_t i = 0; i < cands.size(); ++i) {
    const eval::InputSpec& spec = cands[i].spec;
    if (!forced) {
      double macs = estimate_macs(simplified, spec) * std::max(1, stack);
      if (macs_out) *macs_out = macs;
      if (macs > o.verify_budget_gmac * 1e9) {
        *skipped = "one sample needs about " + gmac_str(macs) + " GMAC";
        if (i > 0)
          *skipped += " with " + eval::describe_sizes(cands[i]) + " (the original fails on smaller sizes: " +
                      failures.back().message() + ")";
        *skipped += ", over the budget of " + gmac_str(o.verify_budget_gmac * 1e9) +
                    " (force the check with --verify, or raise --verify-budget";
        *skipped += i > 0 ? ", or give sizes with --dim, --input-shape or --input)" : ")";
        return nullptr;
      }
    }
    eval::VerifyOptions vo;
    vo.samples = o.samples > 0 ? o.samples : 1;
    vo.seed = o.seed;
    vo.rtol = o.rtol;
    vo.atol = o.atol;
    vo.inputs = spec;
    vo.fast = true;  // float accumulation, as ONNX Runtime computes: both models alike
    if (plan) {
      vo.carried = plan->carried;
      vo.renamed = plan->renamed;
      vo.stack = stack;
      vo.stacked = plan->batched_inputs;
    }
    auto v = eval::Verifier::create(original, vo);
    if (v) {
      v.value()->set_sizes(eval::explain_sizes(cands, i, failures));
      return std::move(v).value();
    }
    last = v.status();
    if (last.code() == ErrorCode::kInterrupted) throw_if_error(last);
    if (last.code() == ErrorCode::kUsage || last.code() == ErrorCode::kUnsupported) break;
    failures.push_back(last);
  }
  std::string tried = eval::sizes_tried(cands);
  return give_up(last, last.code() == ErrorCode::kUsage
                           ? ""
                           : " (the original model fails on these random inputs" + (tried.empty() ? "" : ", " + tried) +
                                 ": give sizes with --dim, --input-shape or --input)");
}

Verification run_check(const eval::Verifier& checker, const ir::Model& candidate, const Options& o,
                       const eval::CompareExtras& extras = {}) {
  Verification v;
  auto rep = checker.compare_with(candidate, extras);
  throw_if_error(rep.is_ok() ? Status::ok() : rep.status());
  v.ran = true;
  v.ok = rep.value().ok;
  v.samples = o.samples > 0 ? o.samples : 1;
  v.rtol = o.rtol;
  v.atol = o.atol;
  v.l2_tol = extras.l2_tol;
  v.dims = checker.dims_used();
  v.sizes = checker.sizes();
  v.why = rep.value().why;
  for (const auto& od : rep.value().outputs) {
    bool comparable = od.not_comparable.empty();
    v.outputs.push_back(OutputCheck{od.name, od.diff.max_abs, od.diff.max_rel, od.diff.scale, od.diff.rel_l2, od.diff.ok,
                                    comparable ? od.diff.why : od.not_comparable, comparable});
  }
  const eval::RandomHandling& r = rep.value().random;
  v.random = r.summary();
  v.random_alike = r.alike;
  v.random_unmatched = r.unmatched;
  v.random_seeded = r.seeded;
  return v;
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

namespace {

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
  for (const eval::SizeCandidate& c : eval::size_candidates(m, given)) {
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
    rep.warnings.push_back("--dtype: the model could not run, so no value range was observed: only the spec's "
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
    Fusion r{f.pass, f.op, f.opset, std::max<int64_t>(0, count(ops_after, f.op) - count(ops_before, f.op)), 0, f.runtimes};
    if (opset < f.opset) r.would_fuse = passes::count_matches(m, f.pass, f.opset, sopts);
    if (r.fused > 0 || r.would_fuse > 0) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

// Simplifies `m` in place and checks it; fills `rep` (stages, passes, verification). Throws
// Error on failure; a check that finds differences is not thrown here (rep.verification.ok).
void simplify_in_place(ir::Model& m, const Options& o, Report& rep) {
  support::CancelScope cancel(o.cancel);
  // --custom-op-schema: this run's custom ops, seen by shape inference on this thread only.
  ops::CustomOpRules custom_ops;
  for (const std::string& f : o.custom_op_schemas) {
    auto r = ops::load_custom_op_schemas(f);
    if (!r.is_ok()) throw_if_error(r.status());
    for (auto& c : r.value()) {
      for (const auto& prev : custom_ops)
        if (prev.domain == c.domain && prev.op_type == c.op_type)
          throw Error(kExitUsage, c.source + ": describes " + c.domain + "::" + c.op_type + " again (" + prev.source + ")");
      custom_ops.push_back(std::move(c));
    }
  }
  ops::CustomOpScope custom_scope(custom_ops.empty() ? ops::current_custom_ops() : &custom_ops);
  if (o.profile && rep.stages.empty()) platform::peak_resident_bytes(true);  // a model given in memory
  passes::SimplifyOptions sopts = simplify_options(o);
  throw_if_error(passes::check_pass_names(sopts));
  sopts.input_shapes = resolve_shapes(m, sopts.input_shapes);
  // The result holds only for the shapes that --input-shape / --dim fix: its inputs say so.
  fix_input_shapes(m, sopts.input_shapes);
  fix_named_dims(m, sopts.dims);
  if (o.progress) sopts.on_pass = [p = o.progress](int round, const std::string& pass) {
    p("round " + std::to_string(round) + ": " + pass, 0, 0);
  };
  if (o.verify_each_pass)
    sopts.make_checker = [&o](const ir::Model& original) -> Result<std::unique_ptr<eval::Verifier>> {
      Options forced = o;
      forced.verify = Options::Verify::kOn;
      std::string skipped;
      try {
        return make_checker(original, original, forced, &skipped, nullptr);
      } catch (const Error& e) {
        return Status(e.exit_code() == kExitUsage ? ErrorCode::kUsage : ErrorCode::kUnsupported, e.what());
      }
    };

  surgery::Request req = surgery_request(o);
  const bool cutting = !req.empty();
  std::unique_ptr<ir::Model> original;
  bool convert = !o.dtype.empty();
  const bool reopset = o.opset != 0;
  // The original, for the check and --graph-diff (one copy for both).
  if ((o.verify != Options::Verify::kOff || o.graph_diff) &&
      (o.run_passes || cutting || convert || reopset || o.inline_functions))
    original = ir::clone_model(m);
  // --graph-diff and --node-reduction-plot, when the run ends: the original (or the cut model,
  // with --dtype after surgery) against the result; the passes' rounds as an SVG.
  auto graph_diff_at_end = [&] {
    if (o.graph_diff) rep.graph_diff = diff_graphs(original ? *original : m, m);
    if (!o.node_reduction_plot.empty()) write_text_file(o.node_reduction_plot, node_reduction_svg(rep.round_stats));
  };

  if (o.inline_functions) {
    // --inline-functions: first, so that every later stage sees the bodies as ordinary nodes.
    double t = now_s();
    throw_if_error(ir::verify_model(m));
    auto res = ir::inline_functions(m);
    throw_if_error(res.is_ok() ? Status::ok() : res.status());
    m.changed_by = "--inline-functions";
    throw_if_error(ir::verify_model(m));
    FunctionInlining& fi = rep.inlining;
    fi.ran = true;
    fi.calls = res.value().calls;
    fi.inlined = res.value().inlined;
    fi.removed = res.value().removed;
    fi.opsets_added = res.value().opsets_added;
    end_stage(rep, o, "inline", t);
  }

  surgery::Plan plan;
  if (cutting) {
    double t = now_s();
    throw_if_error(ir::verify_model(m));
    throw_if_error(surgery::apply(m, req, &plan));
    m.changed_by = "surgery";
    rep.surgery = plan.notes;
    end_stage(rep, o, "surgery", t);
    // With --dtype as well, the simplification and the conversion are checked against the cut
    // model (the surgery's own check needs the float result; it is not run twice).
    if (convert && original) original = ir::clone_model(m);
  }

  if (reopset) {
    // --opset: before the passes, so that they simplify the converted model (and fold what the
    // conversion made, such as constants moved from attributes into inputs).
    double t = now_s();
    throw_if_error(ir::verify_model(m));
    auto res = convert::convert_opset(m, o.opset);
    throw_if_error(res.is_ok() ? Status::ok() : res.status());
    m.changed_by = "--opset conversion";
    throw_if_error(ir::verify_model(m));
    OpsetConversion& oc = rep.opset;
    oc.from = res.value().from;
    oc.to = res.value().to;
    oc.nodes_converted = res.value().nodes_converted;
    oc.nodes_rewritten = res.value().nodes_rewritten;
    oc.nodes_expanded = res.value().nodes_expanded;
    oc.notes = res.value().notes;
    end_stage(rep, o, "opset", t);
  }

  if (o.run_passes) {
    double t = now_s();
    throw_if_error(ir::verify_model(m));
    const std::map<std::string, int64_t> ops_before = compute_stats(m).op_histogram;
    auto res = passes::simplify(m, sopts);
    throw_if_error(res.is_ok() ? Status::ok() : res.status());
    rep.passes.clear();
    for (const passes::PassStats& ps : res.value().passes)
      rep.passes.push_back(PassStats{ps.name, ps.runs, ps.changes, ps.nodes_removed, ps.seconds});
    rep.rounds = res.value().rounds;
    rep.round_stats.clear();
    for (const passes::RoundStats& r : res.value().round_stats)
      rep.round_stats.push_back(RoundStats{r.round, r.nodes, r.initializer_bytes});
    rep.converged = res.value().converged;
    rep.warnings = res.value().warnings;
    rep.fusions = fusions_of(m, ops_before, sopts);
    end_stage(rep, o, "simplify", t);
    if (!o.explain.empty()) {
      rep.explain_node = o.explain;
      rep.explain = passes::explain(m, o.explain, sopts);
    }
  } else if (cutting) {
    throw_if_error(ir::verify_model(m));
  }
  if (convert) {
    if (!o.run_passes) {
      // The conversion reads every value's type: what shape inference proves, as simplify does.
      throw_if_error(ir::verify_model(m));
      passes::InferOptions io;
      io.input_shapes = sopts.input_shapes;
      io.dims = sopts.dims;
      passes::ShapeInference si(m, io);
      throw_if_error(si.run());
      if (!si.errors().empty()) throw_if_error(si.errors().front());
      ir::Rewriter rw(m);
      si.write_back(rw, /*add_value_info=*/false);
    }
    convert_in_place(m, original.get(), o, sopts, rep);
    graph_diff_at_end();
    return;
  }
  if (o.verify == Options::Verify::kOff) {
    rep.verification.skipped = "--no-verify";
  } else if (!o.run_passes && !cutting && !reopset && !o.inline_functions) {
    rep.verification.skipped = "--no-passes (nothing changed)";
  } else {
    double t = now_s();
    if (o.progress) o.progress("check", 0, 0);
    std::string skipped;
    // The reference: the original, with the values the result outputs (and those it takes as
    // inputs at the cut points) as its outputs.
    std::unique_ptr<ir::Model> reference;
    std::string compared;
    int stack = 0;
    if (cutting) {
      reference = ir::clone_model(*original);
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
      eval::Interpreter probe(m);
      Status st = probe.check_supported();
      if (!st.is_ok()) skipped = "the result of the user rewrite rules: " + st.message() + "; the result was written unchecked";
    }
    std::unique_ptr<eval::Verifier> checker;
    if (skipped.empty())
      checker = make_checker(reference ? *reference : *original, m, o, &skipped, nullptr, cutting ? &plan : nullptr,
                             stack);
    if (checker) {
      rep.verification = run_check(*checker, m, o);
      rep.verification.compared = compared;
    } else {
      rep.verification.skipped = skipped;
      rep.warnings.push_back("check skipped: " + skipped);
    }
    end_stage(rep, o, "check", t);
  }
  graph_diff_at_end();
}

}  // namespace api

// ---- Model

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::load(const std::string& path) {
  auto r = onnx_io::load_model(path);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(r.value());
  impl->path = path;
  return Model(std::move(impl));
}

Model Model::parse(const void* data, size_t size, const std::string& base_dir) {
  auto r = onnx_io::parse_model(std::string_view(static_cast<const char*>(data), size), "<buffer>", base_dir);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(r.value());
  return Model(std::move(impl));
}

Model Model::parse_text(const std::string& text) {
  auto r = onnx_io::parse_text_model(text);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(r.value());
  return Model(std::move(impl));
}

Model Model::clone() const {
  auto impl = std::make_unique<Impl>();
  impl->model = ir::clone_model(*impl_->model);
  impl->path = impl_->path;
  return Model(std::move(impl));
}

void Model::save(const std::string& path, const Options& opts) const {
  api::throw_if_error(onnx_io::save_model(*impl_->model, path, api::save_options(opts, path)));
}

std::string Model::serialize() const {
  auto r = onnx_io::serialize_model(*impl_->model);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  return std::move(r.value());
}

std::string Model::to_text() const { return ir::print_model(*impl_->model); }
ModelStats Model::stats() const { return compute_stats(*impl_->model); }

std::vector<std::string> Model::input_names() const {
  std::vector<std::string> out;
  for (const ir::Value* v : impl_->model->graph->inputs())
    if (!v->is_initializer()) out.push_back(v->name());
  return out;
}

std::vector<std::string> Model::output_names() const {
  std::vector<std::string> out;
  for (const ir::Value* v : impl_->model->graph->outputs()) out.push_back(v->name());
  return out;
}

// ---- runs

namespace {

// --report FILE.html: why FILE cannot be written ("" when it can), asked before anything is read
// or written, so that a run never writes OUT and then fails on its report.
std::string report_path_problem(const std::string& path, const std::vector<std::string>& models) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir, ec)) return "the folder '" + dir.string() + "' does not exist";
  if (fs::is_directory(p, ec)) return "'" + path + "' is a folder";
  for (const std::string& f : models)
    if (!f.empty() && fs::weakly_canonical(p, ec) == fs::weakly_canonical(fs::path(f), ec))
      return "'" + path + "' is the model " + f;
  if (::access(dir.c_str(), W_OK) != 0) return "the folder '" + dir.string() + "' is not writable";
  return "";
}

void check_report_path(const Options& opts, const std::vector<std::string>& models) {
  if (opts.report_html.empty()) return;
  std::string why = report_path_problem(opts.report_html, models);
  if (!why.empty()) throw Error(kExitUsage, "--report " + opts.report_html + ": " + why + "; nothing was written");
}

// The page is written whole beside FILE and renamed over it: FILE is never half-written.
void write_report_html(const Options& opts, const Report& rep) {
  if (opts.report_html.empty()) return;
  const std::string& path = opts.report_html;
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << report_html(rep);
    f.close();
    if (!f) {
      int err = errno;
      std::remove(tmp.c_str());
      throw Error(kExitIo, path + ": cannot write the HTML report: " + std::strerror(err));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(kExitIo, path + ": cannot write the HTML report: " + std::strerror(err));
  }
}

}  // namespace

Report simplify(Model& model, const Options& opts) {
  Report rep;
  ir::Model& m = api::ir_model(model);
  const std::string& path = model.impl().path;
  check_report_path(opts, {path});
  rep.before = compute_stats(m);
  try {
    api::within_limits([&] { api::simplify_in_place(m, opts, rep); });
  } catch (const Error& e) {
    api::rethrow_naming(e, path);
  }
  rep.after = compute_stats(m);
  write_report_html(opts, rep);  // with a failed check too: its table says which outputs differ
  if (!rep.verification.ok) throw VerificationFailed(std::move(rep), path);
  return rep;
}

namespace {
// Folded weights are computed into a scratch file in OUT's folder rather than into memory:
// saving then keeps that file as the external data (one file system, no second copy). Each
// simplify_file has a scratch file of its own (a session of its thread); the in-memory API uses
// the process's default one, in $TMPDIR or /tmp.
struct ScratchFolder {
  explicit ScratchFolder(const std::string& out_path) : session(folder_of(out_path)) {}
  static std::string folder_of(const std::string& out_path) {
    std::string dir = std::filesystem::path(out_path).parent_path().string();
    return dir.empty() ? "." : dir;
  }
  ir::scratch::Session session;  // this run's own scratch file: concurrent runs never share one
};
}  // namespace

namespace {

// The output's folder must exist and be writable before any work is done: a run of minutes
// on a large model must not end in "cannot write". So must the folder of an external-data
// location in a subfolder (--external-location weights/w.data): onnxtrim creates no folders.
void check_output_folder(const std::string& out_path, const Options& opts) {
  std::filesystem::path dir = std::filesystem::path(out_path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(kExitIo, out_path + ": cannot write: the folder " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw Error(kExitIo, out_path + ": cannot write: the folder " + dir.string() + " is not writable");
  std::filesystem::path sub = std::filesystem::path(opts.external_location).parent_path();
  if (sub.empty() || opts.external_data == "never") return;
  std::filesystem::path ext_dir = dir / sub;
  if (!std::filesystem::is_directory(ext_dir, ec))
    throw Error(kExitIo, out_path + ": cannot write: the folder " + ext_dir.string() + " of --external-location '" +
                             opts.external_location + "' does not exist");
  if (::access(ext_dir.c_str(), W_OK) != 0)
    throw Error(kExitIo, out_path + ": cannot write: the folder " + ext_dir.string() + " of --external-location '" +
                             opts.external_location + "' is not writable");
}

}  // namespace

Report simplify_file(const std::string& in_path, const std::string& out_path, const Options& opts) {
  // The saving options (an external-data location the loader would refuse ...) before anything
  // is read or written.
  const onnx_io::SaveOptions save_opts = api::save_options(opts, out_path);
  check_report_path(opts, {in_path, out_path});
  Report rep;
  rep.input_path = in_path;
  rep.output_path = out_path;
  ScratchFolder scratch(out_path);  // outlives the model below, whose folded weights are in it
  support::CancelScope cancel(opts.cancel);
  if (opts.profile) platform::peak_resident_bytes(true);  // the load's peak starts here
  double t0 = api::now_s();
  onnx_io::LoadOptions lo;
  if (opts.progress) lo.progress = [p = opts.progress](uint64_t d, uint64_t t) { p("loading", d, t); };
  auto r = onnx_io::load_model(in_path, lo);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  check_output_folder(out_path, opts);  // errors of the input first
  ir::Model& m = *r.value();
  api::end_stage(rep, opts, "load", t0);
  rep.before = compute_stats(m);
  rep.before.file_bytes = api::file_size(in_path);
  try {
    api::within_limits([&] { api::simplify_in_place(m, opts, rep); });
  } catch (const Error& e) {
    api::rethrow_naming(e, in_path);  // errors of the model name the input file
  }
  rep.after = compute_stats(m);
  if (!rep.verification.ok) {
    write_report_html(opts, rep);  // the check's table says which outputs differ
    throw VerificationFailed(std::move(rep), in_path);
  }
  double t1 = api::now_s();
  api::throw_if_error(onnx_io::save_model(m, out_path, save_opts));
  api::end_stage(rep, opts, "save", t1);
  rep.after.file_bytes = api::file_size(out_path);
  write_report_html(opts, rep);
  return rep;
}

Verification verify(const Model& reference, const Model& candidate, const Options& opts) {
  support::CancelScope cancel(opts.cancel);
  Options o = opts;
  o.verify = Options::Verify::kOn;
  if (o.samples <= 0) o.samples = 3;
  std::string skipped;
  try {
    return api::within_limits([&] {
      auto checker = api::make_checker(api::ir_model(reference), api::ir_model(candidate), o, &skipped, nullptr);
      return api::run_check(*checker, api::ir_model(candidate), o);
    });
  } catch (const Error& e) {
    if (e.exit_code() == kExitMismatch) throw;
    api::rethrow_naming(e, reference.impl().path);
  }
}

namespace {

class ExternalBuffer final : public ir::Buffer {
 public:
  ExternalBuffer(const void* p, size_t n, std::shared_ptr<const void> owner)
      : p_(static_cast<const uint8_t*>(p)), n_(n), owner_(std::move(owner)) {}
  const uint8_t* data() const override { return p_; }
  size_t size() const override { return n_; }

 private:
  const uint8_t* p_;
  size_t n_;
  std::shared_ptr<const void> owner_;
};

ir::Tensor to_ir(const std::string& name, const Tensor& t) {
  auto dt = static_cast<ir::DataType>(t.dtype);
  if (std::string(ir::dtype_name(dt)).empty() || dt == ir::DataType::kUndefined)
    throw Error(kExitUsage, "input '" + name + "': unknown element type " + std::to_string(t.dtype));
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0) throw Error(kExitUsage, "input '" + name + "': negative dim");
    n *= d;
  }
  ir::Tensor out = ir::Tensor::shell(dt, t.shape);
  if (dt == ir::DataType::kString) {
    if (static_cast<int64_t>(t.strings.size()) != n)
      throw Error(kExitUsage, "input '" + name + "': " + std::to_string(t.strings.size()) + " strings for " +
                                  std::to_string(n) + " elements");
    out = ir::Tensor(dt, t.shape);
    out.strings() = t.strings;
    return out;
  }
  size_t need = ir::dtype_storage_bytes(dt, n);
  if (t.nbytes != need)
    throw Error(kExitUsage, "input '" + name + "': " + std::to_string(t.nbytes) + " bytes for " + std::to_string(n) +
                                " elements of " + std::string(ir::dtype_name(dt)) + " (needs " + std::to_string(need) + ")");
  out.set_buffer(std::make_shared<ExternalBuffer>(t.data, t.nbytes, t.owner), 0, t.nbytes);
  return out;
}

Tensor from_ir(const ir::Tensor& t) {
  Tensor out;
  out.dtype = static_cast<int32_t>(t.dtype());
  out.shape = t.dims();
  if (t.dtype() == ir::DataType::kString) {
    out.strings = t.strings();
    return out;
  }
  out.data = t.bytes();
  out.nbytes = t.byte_size();
  out.owner = t.buffer();
  return out;
}

}  // namespace

std::map<std::string, Tensor> run(const Model& model, const std::map<std::string, Tensor>& feeds, bool fast) {
  const ir::Model& m = api::ir_model(model);
  eval::Interpreter interp(m);
  interp.set_fast_float(fast);
  try {
    api::throw_if_error(interp.check_supported());
  } catch (const Error& e) {
    api::rethrow_naming(e, model.impl().path);
  }
  std::map<std::string, ir::RuntimeValue> in;
  for (const auto& feed : feeds) {
    const std::string& name = feed.first;  // not a structured binding: clang 14 cannot capture those
    const Tensor& t = feed.second;
    bool known = false;
    for (const ir::Value* v : m.graph->inputs()) known |= v->name() == name;
    if (!known) throw Error(kExitUsage, "the model has no input named '" + name + "'");
    in[name] = ir::RuntimeValue::of(api::within_limits([&] { return to_ir(name, t); }));
  }
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer() && !in.count(v->name()))
      throw Error(kExitUsage, "no value given for input '" + v->name() + "'");
  auto out = api::within_limits([&] { return interp.run(in); });
  if (!out.is_ok()) api::rethrow_naming(Error(api::exit_code_for(out.status().code()), out.status().message()),
                                        model.impl().path);
  std::map<std::string, Tensor> res;
  for (size_t i = 0; i < out.value().size(); ++i) {
    const auto& v = out.value()[i];
    const std::string& name = m.graph->outputs()[i]->name();
    if (!v.is_tensor())
      throw Error(kExitUnsupported, "output '" + name + "' is a sequence or optional: only tensors cross the API");
    res[name] = from_ir(v.tensor);
  }
  return res;
}

void infer_shapes(Model& model, const Options& opts) {
  passes::SimplifyOptions s = api::simplify_options(opts);
  s.only = {"infer_shapes"};
  s.skip.clear();
  s.verify_each_pass = false;
  s.write_value_info = true;
  ir::Model& m = api::ir_model(model);
  s.input_shapes = api::resolve_shapes(m, s.input_shapes);
  // A shape that changes a dim the model fixes replaces the input's declaration, as simplify
  // does; other shapes only seed the inference (the inputs stay as declared).
  std::map<std::string, std::vector<int64_t>> replacing;
  for (const auto& [name, dims] : s.input_shapes)
    for (const ir::Value* v : m.graph->inputs()) {
      if (v->name() != name || v->is_initializer() || !v->type.has_shape || v->type.dims.size() != dims.size()) continue;
      for (size_t i = 0; i < dims.size(); ++i)
        if (v->type.dims[i].is_known() && *v->type.dims[i].value != dims[i]) replacing[name] = dims;
    }
  if (!replacing.empty()) api::fix_input_shapes(m, replacing);
  auto r = api::within_limits([&] { return passes::simplify(m, s); });
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
}

std::string inspect_json(const Model& model) {
  const ir::Model& m = api::ir_model(model);
  nlohmann::ordered_json j;
  j["ir_version"] = m.ir_version;
  j["producer"] = m.producer_name;
  j["producer_version"] = m.producer_version;
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& o : m.opset_import) ops[o.domain.empty() ? "ai.onnx" : o.domain] = o.version;
  j["opsets"] = ops;
  auto values = [](const std::vector<const ir::Value*>& vs) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const ir::Value* v : vs) a.push_back({{"name", v->name()}, {"type", v->type.is_known() ? v->type.str() : "?"}});
    return a;
  };
  std::vector<const ir::Value*> ins, outs;
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer()) ins.push_back(v);
  for (const ir::Value* v : m.graph->outputs()) outs.push_back(v);
  j["inputs"] = values(ins);
  j["outputs"] = values(outs);
  ModelStats s = compute_stats(m);
  j["nodes"] = s.nodes;
  j["top_level_nodes"] = s.top_level_nodes;
  j["op_histogram"] = s.op_histogram;
  j["initializers"] = s.initializers;
  j["initializer_bytes"] = s.initializer_bytes;
  j["functions"] = m.functions.size();
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace onnxtrim
