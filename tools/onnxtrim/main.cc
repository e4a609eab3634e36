// onnxtrim command line: argument parsing and printing only; the work is in the library.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "api/report.h"
#include "eval/interpreter.h"
#include "eval/verify.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "onnx_io/onnx_io.h"
#include "support/status.h"

#ifndef ONNXTRIM_VERSION
#define ONNXTRIM_VERSION "dev"
#endif

namespace fs = std::filesystem;
using namespace onnxtrim;

namespace {

// Exit codes, documented in --help and README.
constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitIo = 3;
constexpr int kExitParse = 4;
constexpr int kExitInvalid = 5;
constexpr int kExitUnsupported = 6;
constexpr int kExitInternal = 70;

int exit_code_for(const Status& st) {
  switch (st.code()) {
    case ErrorCode::kOk: return kExitOk;
    case ErrorCode::kUsage: return kExitUsage;
    case ErrorCode::kIo: return kExitIo;
    case ErrorCode::kParse: return kExitParse;
    case ErrorCode::kInvalidModel: return kExitInvalid;
    case ErrorCode::kUnsupported: return kExitUnsupported;
    case ErrorCode::kMismatch: return kExitMismatch;
    default: return kExitInternal;
  }
}

const char* kHelp = R"(onnxtrim - simplify ONNX models: smaller, verified, runtime-ready

usage:
  onnxtrim IN.onnx OUT.onnx [options]   simplify IN and write OUT (OUT may equal IN)
  onnxtrim inspect IN.onnx              summary of a model: inputs, outputs, opsets, ops, sizes
  onnxtrim run MODEL [input options]    run a model with the reference evaluator, print outputs
                                        (--output-dir DIR also writes DIR/output_K.pb,
                                        and with --save-inputs DIR/input_K.pb; --fast
                                        accumulates float Conv in float, as ONNX Runtime does)
  onnxtrim verify A.onnx B.onnx [...]   run both on the same random inputs, compare outputs
  onnxtrim --list-passes                the passes, in pipeline order
  onnxtrim --help | --version

simplify options:
  --no-passes              load and save without touching the graph (lossless round trip)
  --passes a,b,c           run only these passes
  --skip a,b               run the default pipeline without these
  --max-rounds N           fixed-point cap (default 10)
  --test-convergence       fail (exit 70) if the cap is hit before a fixed point
  --verify-each-pass       after every pass, compare the model with the original on random
                           inputs; stop naming the first pass that changed the numbers
  --verify                 compare the result with the original on random inputs at the end
  --no-value-info          do not write inferred shapes as value_info into OUT
  --no-constant-folding    do not fold constants (same as --skip fold_constants)
  --size-threshold BYTES   a node is folded only if its outputs exceed its constant inputs by
                           at most BYTES (default 4096); large splats are never materialised
  --keep-constant-nodes    keep Constant nodes instead of turning them into initializers
  --target coreml          legalize for Core ML: no tensor of rank > 5 (reports what remains)
  --strict                 with --target: anything the target cannot take is an error (exit 6)
  --dim NAME=V, --input-shape NAME:D,D (see below) also fix shapes for inference and folding
  --json FILE              also write the report as JSON to FILE ("-" for stdout)
  --quiet                  print nothing but errors
  --print                  print the resulting graph in text form
  --external-data MODE     auto (default): tensors that were external stay external, and
                           everything goes external when the file would pass 2 GB;
                           always: every tensor of at least --external-threshold bytes;
                           never: a single file (fails past 2 GB)
  --external-location NAME file name for external data, beside OUT (default OUT.data)
  --external-threshold N   bytes; smaller tensors stay inside the model file (default 1024)

input options (run, verify, --verify, --verify-each-pass):
  --samples N              random samples (default 3 for verify, 1 otherwise)
  --seed S                 random seed (default 0)
  --dim NAME=V             fix a named dimension (e.g. --dim batch=2)
  --input-shape NAME:D,D   an input's whole shape (e.g. --input-shape ids:1,512)
  --input NAME=FILE.pb     pin an input to a TensorProto file ...
  --input NAME=NUMBER      ... or fill it with a number (e.g. --input sample_rate=16000)
  --rtol X --atol X        tolerances (default 1e-4 and 1e-5)

exit codes:
  0   success
  1   verification found outputs that differ
  2   bad command line
  3   file missing, unreadable or unwritable
  4   not an ONNX model (corrupt or truncated protobuf)
  5   invalid model (undefined value, cycle, bad external data ...)
  6   unsupported (an operator the evaluator lacks, a custom domain)
  70  internal error (a bug: please report it)
)";

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Progress on stderr, only when it is a terminal, not quiet, and a stage lasts > 0.3 s.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}
  void stage(const std::string& name) {
    clear();
    name_ = name;
    start_ = now_s();
  }
  void bar(uint64_t done, uint64_t total) {
    if (!enabled_ || now_s() - start_ < 0.3 || total == 0) return;
    int width = 30;
    int fill = static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * width);
    std::string b(static_cast<size_t>(fill), '#');
    b.resize(static_cast<size_t>(width), ' ');
    std::fprintf(stderr, "\r%-12s [%s] %3d%%", name_.c_str(), b.c_str(), static_cast<int>(100.0 * done / total));
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r%70s\r", "");
    shown_ = false;
  }
  // A line naming what runs now (e.g. the pass), once the stage has lasted a moment.
  void note(const std::string& what) {
    if (!enabled_ || now_s() - start_ < 0.3) return;
    std::fprintf(stderr, "\r%-12s %-56s", name_.c_str(), what.substr(0, 56).c_str());
    shown_ = true;
  }
  onnx_io::ProgressFn fn() {
    if (!enabled_) return nullptr;
    return [this](uint64_t d, uint64_t t) { bar(d, t); };
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::string name_;
  double start_ = 0;
};

int64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

int fail(const Status& st) {
  std::fprintf(stderr, "onnxtrim: error: %s\n", st.message().c_str());
  return exit_code_for(st);
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "onnxtrim: %s (see onnxtrim --help)\n", msg.c_str());
  return kExitUsage;
}

std::string shape_str(const ir::Value* v) { return v->type.is_known() ? v->type.str() : "?"; }

int cmd_inspect(const std::vector<std::string>& args) {
  if (args.size() != 1) return usage_error("inspect takes one model file");
  auto r = onnx_io::load_model(args[0]);
  if (!r) return fail(r.status());
  const ir::Model& m = *r.value();
  ModelStats s = compute_stats(m);
  s.file_bytes = file_size(args[0]);
  std::printf("model: %s\n", args[0].c_str());
  std::printf("ir_version: %lld  producer: %s %s\n", static_cast<long long>(m.ir_version), m.producer_name.c_str(),
              m.producer_version.c_str());
  std::printf("opsets:");
  for (const auto& o : m.opset_import)
    std::printf(" %s=%lld", o.domain.empty() ? "ai.onnx" : o.domain.c_str(), static_cast<long long>(o.version));
  std::printf("\ninputs:\n");
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer()) std::printf("  %s: %s\n", v->name().c_str(), shape_str(v).c_str());
  std::printf("outputs:\n");
  for (const ir::Value* v : m.graph->outputs()) std::printf("  %s: %s\n", v->name().c_str(), shape_str(v).c_str());
  std::printf("nodes: %lld (%lld at top level)\n", static_cast<long long>(s.nodes), static_cast<long long>(s.top_level_nodes));
  for (const auto& [op, n] : s.op_histogram) std::printf("  %-32s %lld\n", op.c_str(), static_cast<long long>(n));
  std::printf("initializers: %lld, %s\n", static_cast<long long>(s.initializers), human_bytes(s.initializer_bytes).c_str());
  std::printf("functions: %zu\n", m.functions.size());
  std::printf("file size: %s\n", human_bytes(s.file_bytes).c_str());
  return kExitOk;
}

// Options shared by run/verify/--verify: collected raw, applied once the model is loaded.
struct InputArgs {
  int samples = -1;
  uint64_t seed = 0;
  double rtol = 1e-4, atol = 1e-5;
  std::vector<std::string> dims, shapes, pins;
  // Consumes argv[i] (and its value) when it is an input option; returns false otherwise.
  bool take(int& i, int argc, char** argv, std::string* err) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        *err = a + " needs a value";
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--samples") {
      if (!(v = value())) return true;
      samples = std::atoi(v);
      if (samples <= 0) *err = "--samples needs a positive count";
    } else if (a == "--seed") {
      if (!(v = value())) return true;
      seed = std::strtoull(v, nullptr, 10);
    } else if (a == "--rtol") {
      if (!(v = value())) return true;
      rtol = std::strtod(v, nullptr);
    } else if (a == "--atol") {
      if (!(v = value())) return true;
      atol = std::strtod(v, nullptr);
    } else if (a == "--dim") {
      if ((v = value())) dims.push_back(v);
    } else if (a == "--input-shape") {
      if ((v = value())) shapes.push_back(v);
    } else if (a == "--input") {
      if ((v = value())) pins.push_back(v);
    } else {
      return false;
    }
    return true;
  }
  Status apply(const ir::Model& m, eval::InputSpec& spec) const {
    for (const auto& d : dims) OT_RETURN_IF_ERROR(eval::parse_dim(d, spec));
    for (const auto& sh : shapes) OT_RETURN_IF_ERROR(eval::parse_input_shape(sh, spec));
    for (const auto& p : pins) OT_RETURN_IF_ERROR(eval::pin_input(m, p, spec));
    return Status::ok();
  }
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void print_verify_report(const eval::VerifyReport& rep, double rtol, double atol) {
  std::printf("%-32s %14s %14s  %s\n", "output", "max abs diff", "max rel diff", "result");
  for (const auto& o : rep.outputs)
    std::printf("%-32s %14.6g %14.6g  %s\n", o.name.c_str(), o.diff.max_abs, o.diff.max_rel, o.diff.ok ? "ok" : "DIFFERS");
  if (!rep.ok) std::printf("first difference: %s (rtol %g, atol %g)\n", rep.why.c_str(), rtol, atol);
}

int cmd_list_passes() {
  for (const passes::PassInfo* p : passes::PassRegistry::instance().all())
    std::printf("%-34s %s%s\n", p->name.c_str(), p->default_on ? "" : "(off by default) ", p->description.c_str());
  return kExitOk;
}

int cmd_run(int argc, char** argv) {
  InputArgs in;
  std::vector<std::string> positional;
  std::string output_dir;
  bool save_inputs = false;
  bool fast = false;  // --fast: float accumulation in Conv
  for (int i = 2; i < argc; ++i) {
    std::string err;
    if (in.take(i, argc, argv, &err)) {
      if (!err.empty()) return usage_error(err);
      continue;
    }
    if (std::string(argv[i]) == "--save-inputs") {
      save_inputs = true;
      continue;
    }
    if (std::string(argv[i]) == "--fast") {
      fast = true;
      continue;
    }
    if (std::string(argv[i]) == "--output-dir") {
      if (i + 1 >= argc) return usage_error("--output-dir needs a folder");
      output_dir = argv[++i];
      continue;
    }
    if (argv[i][0] == '-') return usage_error(std::string("unknown option '") + argv[i] + "'");
    positional.push_back(argv[i]);
  }
  if (positional.size() != 1) return usage_error("run takes one model file");
  auto r = onnx_io::load_model(positional[0]);
  if (!r) return fail(r.status());
  const ir::Model& m = *r.value();
  eval::InputSpec spec;
  Status st = in.apply(m, spec);
  if (!st.is_ok()) return fail(st);
  eval::Interpreter interp(m);
  interp.set_fast_float(fast);
  st = interp.check_supported();
  if (!st.is_ok()) return fail(st.with_file(positional[0]));
  auto feeds = eval::make_random_inputs(m, spec, in.seed);
  if (!feeds) return fail(feeds.status());
  auto out = interp.run(feeds.value());
  if (!out) return fail(Status(out.status()).with_file(positional[0]));
  if (!output_dir.empty()) {
    // output_K.pb (TensorProto), as the ONNX backend tests lay them out.
    std::error_code ec;
    fs::create_directories(output_dir, ec);
    if (save_inputs) {
      size_t k = 0;
      for (const ir::Value* v : m.graph->inputs()) {
        if (v->is_initializer()) continue;
        const auto& rv = feeds.value().at(v->name());
        auto bytes = onnx_io::serialize_tensor_proto(rv.tensor);
        std::string path = output_dir + "/input_" + std::to_string(k++) + ".pb";
        std::ofstream f(path, std::ios::binary);
        f << bytes.value();
        if (!f) return fail(Status(ErrorCode::kIo, "cannot write").with_file(path));
      }
    }
    for (size_t i = 0; i < out.value().size(); ++i) {
      const auto& v = out.value()[i];
      if (!v.is_tensor()) continue;
      auto bytes = onnx_io::serialize_tensor_proto(v.tensor);
      std::string path = output_dir + "/output_" + std::to_string(i) + ".pb";
      std::ofstream f(path, std::ios::binary);
      f << bytes.value();
      if (!f) return fail(Status(ErrorCode::kIo, "cannot write").with_file(path));
    }
  }
  for (size_t i = 0; i < out.value().size(); ++i) {
    const auto& v = out.value()[i];
    std::printf("%s: ", m.graph->outputs()[i]->name().c_str());
    if (v.is_tensor()) {
      std::string dims;
      for (size_t d = 0; d < v.tensor.dims().size(); ++d) dims += (d ? "," : "") + std::to_string(v.tensor.dims()[d]);
      std::printf("%s[%s] %s\n", std::string(ir::dtype_name(v.tensor.dtype())).c_str(), dims.c_str(),
                  ir::print_tensor_values(v.tensor, 8).c_str());
    } else {
      std::printf("%s of %zu elements\n", v.is_sequence() ? "sequence" : "optional", v.elems.size());
    }
  }
  return kExitOk;
}

int cmd_verify(int argc, char** argv) {
  InputArgs in;
  std::vector<std::string> positional;
  for (int i = 2; i < argc; ++i) {
    std::string err;
    if (in.take(i, argc, argv, &err)) {
      if (!err.empty()) return usage_error(err);
      continue;
    }
    if (argv[i][0] == '-') return usage_error(std::string("unknown option '") + argv[i] + "'");
    positional.push_back(argv[i]);
  }
  if (positional.size() != 2) return usage_error("verify takes two model files");
  auto a = onnx_io::load_model(positional[0]);
  if (!a) return fail(a.status());
  auto b = onnx_io::load_model(positional[1]);
  if (!b) return fail(b.status());
  eval::VerifyOptions vo;
  vo.samples = in.samples > 0 ? in.samples : 3;
  vo.seed = in.seed;
  vo.rtol = in.rtol;
  vo.atol = in.atol;
  Status st = in.apply(*a.value(), vo.inputs);
  if (!st.is_ok()) return fail(st);
  auto v = eval::Verifier::create(*a.value(), vo);
  if (!v) return fail(Status(v.status()).with_file(positional[0]));
  auto rep = v.value()->compare_with(*b.value());
  if (!rep) return fail(Status(rep.status()).with_file(positional[1]));
  print_verify_report(rep.value(), vo.rtol, vo.atol);
  return rep.value().ok ? kExitOk : kExitMismatch;
}

int cmd_simplify(int argc, char** argv) {
  std::vector<std::string> positional;
  bool no_passes = false, quiet = false, print = false, verify = false;
  std::string json_path;
  onnx_io::SaveOptions save_opts;
  passes::SimplifyOptions sopts;
  InputArgs in;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    std::string err;
    if (in.take(i, argc, argv, &err)) {
      if (!err.empty()) return usage_error(err);
      continue;
    }
    if (a == "--no-passes") no_passes = true;
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (a == "--print") print = true;
    else if (a == "--verify") verify = true;
    else if (a == "--no-value-info") sopts.write_value_info = false;
    else if (a == "--no-constant-folding") sopts.skip.push_back("fold_constants");
    else if (a == "--strict") sopts.strict = true;
    else if (a == "--target") {
      auto v = need();
      if (!v) return usage_error("--target needs a target name (coreml)");
      if (*v != "coreml") return usage_error("unknown target '" + *v + "' (known: coreml)");
      sopts.target = *v;
    }
    else if (a == "--keep-constant-nodes") sopts.keep_constant_nodes = true;
    else if (a == "--size-threshold") {
      auto v = need();
      char* end = nullptr;
      if (!v) return usage_error("--size-threshold needs a byte count");
      unsigned long long n = std::strtoull(v->c_str(), &end, 10);
      if (end == v->c_str() || *end) return usage_error("--size-threshold needs a byte count, not '" + *v + "'");
      sopts.size_threshold = n;
    }
    else if (a == "--verify-each-pass") sopts.verify_each_pass = true;
    else if (a == "--test-convergence") sopts.fail_on_cap = true;
    else if (a == "--passes" || a == "--skip" || a == "--max-rounds") {
      auto v = need();
      if (!v) return usage_error(a + " needs a value");
      if (a == "--passes") sopts.only = split_commas(*v);
      else if (a == "--skip") sopts.skip = split_commas(*v);
      else {
        sopts.max_rounds = std::atoi(v->c_str());
        if (sopts.max_rounds <= 0) return usage_error("--max-rounds needs a positive count");
      }
    } else if (a == "--json") {
      auto v = need();
      if (!v) return usage_error("--json needs a file name");
      json_path = *v;
    } else if (a == "--external-data") {
      auto v = need();
      if (!v) return usage_error("--external-data needs auto, always or never");
      if (*v == "auto") save_opts.external = onnx_io::SaveOptions::ExternalData::kAuto;
      else if (*v == "always") save_opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
      else if (*v == "never") save_opts.external = onnx_io::SaveOptions::ExternalData::kNever;
      else return usage_error("--external-data needs auto, always or never, not '" + *v + "'");
    } else if (a == "--external-location") {
      auto v = need();
      if (!v) return usage_error("--external-location needs a file name");
      save_opts.location = *v;
    } else if (a == "--external-threshold") {
      auto v = need();
      if (!v) return usage_error("--external-threshold needs a byte count");
      char* end = nullptr;
      unsigned long long n = std::strtoull(v->c_str(), &end, 10);
      if (end == v->c_str() || *end) return usage_error("--external-threshold needs a byte count, not '" + *v + "'");
      save_opts.size_threshold = n;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) return usage_error("expected IN.onnx OUT.onnx");
  {
    Status st = passes::check_pass_names(sopts);
    if (!st.is_ok()) return fail(st);
  }
  const std::string& inp = positional[0];
  const std::string& out = positional[1];

  Progress progress(!quiet);
  Report report;
  report.input_path = inp;
  report.output_path = out;

  double t0 = now_s();
  progress.stage("loading");
  onnx_io::LoadOptions load_opts;
  load_opts.progress = progress.fn();
  auto r = onnx_io::load_model(inp, load_opts);
  progress.clear();
  if (!r) return fail(r.status());
  ir::Model& m = *r.value();
  report.stages.emplace_back("load", now_s() - t0);
  report.before = compute_stats(m);
  report.before.file_bytes = file_size(inp);

  {
    // --dim and --input-shape also steer shape inference (and so folding).
    eval::InputSpec spec;
    for (const auto& d : in.dims) {
      Status st = eval::parse_dim(d, spec);
      if (!st.is_ok()) return fail(st);
    }
    for (const auto& sh : in.shapes) {
      Status st = eval::parse_input_shape(sh, spec);
      if (!st.is_ok()) return fail(st);
    }
    sopts.dims = spec.dims;
    sopts.input_shapes = spec.shapes;
  }
  std::unique_ptr<eval::Verifier> verifier;
  if (verify || sopts.verify_each_pass) {
    eval::VerifyOptions vo;
    vo.samples = in.samples > 0 ? in.samples : 1;
    vo.seed = in.seed;
    vo.rtol = in.rtol;
    vo.atol = in.atol;
    Status st = in.apply(m, vo.inputs);
    if (!st.is_ok()) return fail(st);
    sopts.verify_samples = vo.samples;
    sopts.seed = vo.seed;
    sopts.rtol = vo.rtol;
    sopts.atol = vo.atol;
    if (verify) {
      auto v = eval::Verifier::create(m, vo);
      if (!v) return fail(Status(v.status()).with_file(inp));
      verifier = std::move(v).value();
    }
  }

  if (!no_passes) {
    double t1 = now_s();
    progress.stage("simplify");
    Status st = ir::verify_model(m);
    if (!st.is_ok()) return fail(st.with_file(inp));
    sopts.on_pass = [&](int round, const std::string& pass) {
      progress.note("round " + std::to_string(round) + ": " + pass);
    };
    auto res = passes::simplify(m, sopts);
    progress.clear();
    if (!res) return fail(Status(res.status()).with_file(inp));
    report.passes = res.value().passes;
    report.rounds = res.value().rounds;
    report.converged = res.value().converged;
    report.warnings = res.value().warnings;
    report.stages.emplace_back("simplify", now_s() - t1);
  }
  if (verifier) {
    double t3 = now_s();
    progress.stage("verify");
    auto rep = verifier->compare_with(m);
    if (!rep) return fail(Status(rep.status()).with_file(inp));
    report.stages.emplace_back("verify", now_s() - t3);
    if (!rep.value().ok) {
      print_verify_report(rep.value(), in.rtol, in.atol);
      std::fprintf(stderr, "onnxtrim: error: %s: the simplified model computes different outputs; nothing was written\n",
                   inp.c_str());
      return kExitMismatch;
    }
  }

  double t2 = now_s();
  progress.stage("saving");
  save_opts.progress = progress.fn();
  Status st = onnx_io::save_model(m, out, save_opts);
  progress.clear();
  if (!st.is_ok()) return fail(st);
  report.stages.emplace_back("save", now_s() - t2);
  report.after = compute_stats(m);
  report.after.file_bytes = file_size(out);

  if (print) std::cout << ir::print_model(m);
  if (!quiet) std::cout << report.to_text();
  if (!json_path.empty()) {
    std::string js = report.to_json();
    if (json_path == "-") {
      std::cout << js;
    } else {
      std::ofstream f(json_path);
      f << js;
      if (!f) return fail(Status(ErrorCode::kIo, "cannot write the JSON report").with_file(json_path));
    }
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kHelp, stderr);
    return kExitUsage;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (first == "--version") {
    std::printf("onnxtrim %s\n", ONNXTRIM_VERSION);
    return kExitOk;
  }
  try {
    if (first == "--list-passes") return cmd_list_passes();
    if (first == "inspect") {
      std::vector<std::string> rest(argv + 2, argv + argc);
      return cmd_inspect(rest);
    }
    if (first == "run") return cmd_run(argc, argv);
    if (first == "verify") return cmd_verify(argc, argv);
    return cmd_simplify(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "onnxtrim: error: out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnxtrim: internal error: %s\n", e.what());
    return kExitInternal;
  }
}
