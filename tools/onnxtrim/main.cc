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
  onnxtrim --help | --version

options:
  --no-passes              load and save without touching the graph (lossless round trip)
  --json FILE              also write the report as JSON to FILE ("-" for stdout)
  --quiet                  print nothing but errors
  --print                  print the resulting graph in text form
  --external-data MODE     auto (default): tensors that were external stay external, and
                           everything goes external when the file would pass 2 GB;
                           always: every tensor of at least --external-threshold bytes;
                           never: a single file (fails past 2 GB)
  --external-location NAME file name for external data, beside OUT (default OUT.data)
  --external-threshold N   bytes; smaller tensors stay inside the model file (default 1024)

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
    if (shown_) std::fprintf(stderr, "\r%60s\r", "");
    shown_ = false;
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

int cmd_simplify(const std::vector<std::string>& args, int argc_start, char** argv, int argc) {
  std::vector<std::string> positional;
  bool no_passes = false, quiet = false, print = false;
  std::string json_path;
  onnx_io::SaveOptions save_opts;
  for (int i = argc_start; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&](const char* what) -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      (void)what;
      return std::string(argv[++i]);
    };
    if (a == "--no-passes") no_passes = true;
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (a == "--print") print = true;
    else if (a == "--json") {
      auto v = need("FILE");
      if (!v) return usage_error("--json needs a file name");
      json_path = *v;
    } else if (a == "--external-data") {
      auto v = need("MODE");
      if (!v) return usage_error("--external-data needs auto, always or never");
      if (*v == "auto") save_opts.external = onnx_io::SaveOptions::ExternalData::kAuto;
      else if (*v == "always") save_opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
      else if (*v == "never") save_opts.external = onnx_io::SaveOptions::ExternalData::kNever;
      else return usage_error("--external-data needs auto, always or never, not '" + *v + "'");
    } else if (a == "--external-location") {
      auto v = need("NAME");
      if (!v) return usage_error("--external-location needs a file name");
      save_opts.location = *v;
    } else if (a == "--external-threshold") {
      auto v = need("N");
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
  (void)args;
  if (positional.size() != 2) return usage_error("expected IN.onnx OUT.onnx");
  const std::string& in = positional[0];
  const std::string& out = positional[1];

  Progress progress(!quiet);
  Report report;
  report.input_path = in;
  report.output_path = out;

  double t0 = now_s();
  progress.stage("loading");
  onnx_io::LoadOptions load_opts;
  load_opts.progress = progress.fn();
  auto r = onnx_io::load_model(in, load_opts);
  progress.clear();
  if (!r) return fail(r.status());
  ir::Model& m = *r.value();
  report.stages.emplace_back("load", now_s() - t0);
  report.before = compute_stats(m);
  report.before.file_bytes = file_size(in);

  if (!no_passes) {
    double t1 = now_s();
    progress.stage("simplify");
    // The default pipeline grows with the pass issues; the structure is checked already.
    Status st = ir::verify_model(m);
    if (!st.is_ok()) return fail(st.with_file(in));
    report.stages.emplace_back("simplify", now_s() - t1);
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
    if (first == "inspect") {
      std::vector<std::string> rest(argv + 2, argv + argc);
      return cmd_inspect(rest);
    }
    return cmd_simplify({}, 1, argv, argc);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "onnxtrim: error: out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnxtrim: internal error: %s\n", e.what());
    return kExitInternal;
  }
}
