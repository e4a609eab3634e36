// onnxtrim command line: argument parsing (from the one option table) and printing; the work
// is in the library, reached through the public API (include/onnxtrim/onnxtrim.hpp).
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#ifdef ONNXTRIM_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

#include "api/internal.h"
#include "driver/report.h"
#include "eval/interpreter.h"
#include "driver/sizes.h"
#include "eval/verify.h"
#include "ir/printer.h"
#include "ir/rewriter.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass.h"
#include "passes/shape_inference.h"
#include "support/cancel.h"

namespace fs = std::filesystem;
using namespace onnxtrim;

namespace {

// Ctrl-C: the first stops the run where the library next looks (between passes, between nodes
// of the evaluator), which then fails with exit code 130, writing nothing; a second kills.
// Set by main() only: inside Python (python3 -m onnxtrim) the module's own flag is in effect.
std::atomic<bool> g_interrupted{false};
bool g_handle_sigint = false;

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
}

const char* kUsage = R"(onnxtrim - simplify ONNX models: smaller, checked, runtime-ready

usage:
  onnxtrim IN.onnx OUT.onnx [options]   simplify IN, check the result against it, write OUT
                                        (OUT may equal IN)
  onnxtrim inspect IN.onnx              summary of a model: inputs, outputs, opsets, ops, sizes
  onnxtrim run MODEL [input options]    run a model with the reference evaluator, print outputs
                                        (--output-dir DIR also writes DIR/output_K.pb,
                                        and with --save-inputs DIR/input_K.pb; --fast
                                        accumulates float Conv in float, as ONNX Runtime does)
  onnxtrim verify A.onnx B.onnx [...]   run both on the same random inputs, compare outputs
  onnxtrim --list-passes                the passes, in pipeline order
  onnxtrim --help | --version
)";

const char* kExitCodes = R"(
exit codes:
  0   success
  1   the check found outputs that differ (nothing is written)
  2   bad command line
  3   file missing, unreadable or unwritable
  4   not an ONNX model (corrupt or truncated protobuf)
  5   invalid model (undefined value, cycle, bad external data ...)
  6   unsupported (an operator the evaluator lacks, a custom domain)
  70  internal error (a bug: please report it)
  130 interrupted
)";

std::string help_text() {
  std::string out = kUsage;
  const std::pair<const char*, const char*> groups[] = {
      {"simplify", "simplify options"},
      {"surgery", "surgery (before the passes; the check compares with the original's values at the cut points)"},
      {"check", "the check (on by default: the result is compared with the original on random inputs)"},
      {"inputs", "input options (run, verify, and the check)"},
      {"save", "saving"},
      {"output", "output"},
      {"onnxsim", "onnxsim's flags (mapped onto onnxtrim's options)"},
      {"onnxslim", "OnnxSlim's flags (mapped onto onnxtrim's options)"},
  };
  for (const auto& [g, title] : groups) {
    out += std::string("\n") + title + ":\n";
    for (const OptionInfo& o : option_table()) {
      if (o.group != g) continue;
      std::string left = "  --" + o.name;
      if (!o.metavar.empty()) left += o.optional_value ? " [" + o.metavar + "]" : " " + o.metavar;
      std::string help = o.help;
      if (left.size() < 28) {
        left.resize(28, ' ');
        out += left + help + "\n";
      } else {
        out += left + "\n" + std::string(28, ' ') + help + "\n";
      }
    }
  }
  return out + kExitCodes;
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "onnxtrim: %s (see onnxtrim --help)\n", msg.c_str());
  return kExitUsage;
}

int fail(const Error& e) {
  if (e.exit_code() == kExitUsage) return usage_error(e.what());
  std::fprintf(stderr, "onnxtrim: error: %s\n", e.what());
  return e.exit_code();
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Progress on stderr, only when it is a terminal and not quiet, once a stage lasts 0.3 s.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}
  ~Progress() { clear(); }
  void update(const std::string& stage, uint64_t done, uint64_t total) {
    if (!enabled_) return;
    std::string name = stage.substr(0, stage.find(':'));
    if (name != name_) {
      clear();
      name_ = name;
      start_ = now_s();
    }
    if (now_s() - start_ < 0.3) return;
    if (total > 0) {
      int width = 30;
      int fill = static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * width);
      std::string b(static_cast<size_t>(fill), '#');
      b.resize(static_cast<size_t>(width), ' ');
      std::fprintf(stderr, "\r%-12s [%s] %3d%%", name.c_str(), b.c_str(), static_cast<int>(100.0 * done / total));
    } else {
      std::fprintf(stderr, "\r%-12s %-56s", name.c_str(), stage.substr(0, 56).c_str());
    }
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r%70s\r", "");
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::string name_;
  double start_ = 0;
};

const OptionInfo* find_option(const std::string& name) {
  for (const OptionInfo& o : option_table())
    if (o.name == name) return &o;
  return nullptr;
}

// Parses argv[first..] into options (from the table) and positional arguments. `extra` takes
// the subcommand's own options (returns true when it consumed argv[i]).
void parse_args(int argc, char** argv, int first, Options& opts, std::vector<std::string>& positional,
                const std::function<bool(int&)>& extra = nullptr) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (extra && extra(i)) continue;
    if (a == "-q") a = "--quiet";
    if (a.size() < 2 || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    if (a.rfind("--", 0) != 0) throw Error(kExitUsage, "unknown option '" + a + "'");
    std::string name = a.substr(2), value;
    bool has_value = false;
    auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    for (char& c : name)
      if (c == '_') c = '-';
    const OptionInfo* o = find_option(name);
    if (!o) throw Error(kExitUsage, "unknown option '--" + name + "'");
    if (!has_value && !o->metavar.empty()) {
      auto next_is_value = [&](int j) {
        if (j >= argc) return false;
        std::string n = argv[j];
        return !(n.size() > 1 && n[0] == '-' && !std::isdigit(static_cast<unsigned char>(n[1])));
      };
      if (o->multi_value) {
        // Every following word up to the next option (or a model file name), each given to
        // the option on its own (as if the option were repeated): a word's quotes stay in it.
        std::vector<std::string> ws;
        while (next_is_value(i + 1)) {
          std::string w = argv[i + 1];
          if (w.size() > 5 && w.compare(w.size() - 5, 5, ".onnx") == 0) break;
          ws.push_back(w);
          ++i;
        }
        if (!ws.empty()) {
          for (const auto& w : ws) opts.set(name, w);
          continue;
        }
      } else if (o->optional_value) {
        if (next_is_value(i + 1) && std::isdigit(static_cast<unsigned char>(argv[i + 1][0]))) {
          value = argv[++i];
          has_value = true;
        }
      } else {
        if (i + 1 >= argc) throw Error(kExitUsage, "--" + name + " needs a value (" + o->metavar + ")");
        value = argv[++i];
        has_value = true;
      }
      if (!has_value && !o->optional_value)
        throw Error(kExitUsage, "--" + name + " needs a value (" + o->metavar + ")");
    }
    opts.set(name, value);
  }
}

void print_check(const Verification& v) {
  std::printf("%-32s %14s %14s  %s\n", "output", "max abs diff", "max rel diff", "result");
  for (const auto& o : v.outputs) {
    if (!o.comparable) std::printf("%-32s %14s %14s  %s\n", o.name.c_str(), "-", "-", "not comparable");
    else std::printf("%-32s %14.6g %14.6g  %s\n", o.name.c_str(), o.max_abs, o.max_rel, o.ok ? "ok" : "DIFFERS");
  }
  if (!v.random.empty()) std::printf("random ops: %s\n", v.random.c_str());
  for (const auto& o : v.outputs)
    if (!o.comparable) std::printf("not comparable: %s: %s\n", o.name.c_str(), o.why.c_str());
  if (!v.ok)
    std::printf("first difference: %s (|result - original| <= %g + %g * max(|original|, output RMS))\n", v.why.c_str(),
                v.atol, v.rtol);
}

// Why --json FILE cannot be written after the run ("" when it can): checked before anything is
// written, so that a run never writes OUT and then fails on its report.
std::string json_path_problem(const std::string& path, const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return "";
  std::error_code ec;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir, ec)) return "folder '" + dir.string() + "' does not exist";
  if (fs::is_directory(p, ec)) return "'" + path + "' is a folder";
  for (const std::string& f : files)
    if (fs::weakly_canonical(p, ec) == fs::weakly_canonical(fs::path(f), ec)) return "'" + path + "' is the model " + f;
  if (::access(dir.c_str(), W_OK) != 0) return "folder '" + dir.string() + "' is not writable";
  return "";
}

int write_json(const std::string& path, const std::string& js) {
  if (path.empty()) return kExitOk;
  if (path == "-") {
    std::cout << js;
    return kExitOk;
  }
  std::ofstream f(path);
  f << js;
  if (!f) {
    std::fprintf(stderr, "onnxtrim: error: %s: cannot write the JSON report\n", path.c_str());
    return kExitIo;
  }
  return kExitOk;
}

// OnnxSlim's --inspect --dump-to-disk: IN's nodes (subgraphs too) appended to
// STEM_model_info.csv in the current folder, one row per node output (the node's name and op on
// its first), with the dtype and shape shape inference gives.
void dump_model_info(Model& model, const std::string& path) {
  ir::Model& m = api::ir_model(model);
  passes::ShapeInference si(m);
  if (si.run().is_ok()) {
    ir::Rewriter rw(m);
    si.write_back(rw, /*add_value_info=*/false);
  }
  auto csv = [](const std::string& f) {
    if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
    std::string q = "\"";
    for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string file = fs::path(path).stem().string() + "_model_info.csv";
  std::error_code ec;
  bool fresh = !fs::exists(file, ec) || fs::file_size(file, ec) == 0;
  std::ofstream f(file, std::ios::app);
  if (fresh) f << "NodeName,OpType,OutputDtype,OutputShape\n";
  std::function<void(const ir::Graph&)> dump = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      bool first = true;
      for (const ir::Value* v : n->outputs()) {
        if (!v) continue;
        // As OnnxSlim writes them: NumPy's dtype names, the shape as a Python list.
        std::string dtype = v->type.is_tensor() ? std::string(ir::dtype_name(v->type.elem)) : v->type.str();
        if (dtype == "float") dtype = "float32";
        else if (dtype == "double") dtype = "float64";
        std::string shape;
        if (v->type.is_tensor() && v->type.has_shape) {
          shape = "[";
          for (size_t i = 0; i < v->type.dims.size(); ++i) {
            const ir::Dim& d = v->type.dims[i];
            shape += i ? ", " : "";
            shape += d.is_known() ? std::to_string(*d.value) : d.param.empty() ? "None" : "'" + d.param + "'";
          }
          shape += "]";
        }
        f << (first ? csv(n->name) : "") << "," << (first ? csv(n->op_type) : "") << "," << csv(dtype) << ","
          << csv(shape) << "\n";
        first = false;
      }
      for (const ir::Graph* sg : n->subgraphs()) dump(*sg);
    });
  };
  dump(*m.graph);
  if (!f) throw Error(kExitIo, file + ": cannot write the model info");
  std::printf("model info written to %s\n", file.c_str());
}

int cmd_inspect(const std::string& path, bool dump_to_disk = false) {
  Model m = Model::load(path);
  auto j = nlohmann::json::parse(inspect_json(m));
  std::printf("model: %s\n", path.c_str());
  std::printf("ir_version: %lld  producer: %s %s\n", j["ir_version"].get<long long>(),
              j["producer"].get<std::string>().c_str(), j["producer_version"].get<std::string>().c_str());
  std::printf("opsets:");
  for (auto& [k, v] : j["opsets"].items()) std::printf(" %s=%lld", k.c_str(), v.get<long long>());
  std::printf("\ninputs:\n");
  for (auto& v : j["inputs"])
    std::printf("  %s: %s\n", v["name"].get<std::string>().c_str(), v["type"].get<std::string>().c_str());
  std::printf("outputs:\n");
  for (auto& v : j["outputs"])
    std::printf("  %s: %s\n", v["name"].get<std::string>().c_str(), v["type"].get<std::string>().c_str());
  std::printf("nodes: %lld (%lld at top level)\n", j["nodes"].get<long long>(), j["top_level_nodes"].get<long long>());
  for (auto& [k, v] : j["op_histogram"].items()) std::printf("  %-32s %lld\n", k.c_str(), v.get<long long>());
  ModelStats s = m.stats();
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  std::printf("initializers: %lld, %s\n", static_cast<long long>(s.initializers),
              human_bytes(s.initializer_bytes).c_str());
  std::printf("functions: %lld\n", j["functions"].get<long long>());
  std::printf("file size: %s\n", human_bytes(ec ? -1 : static_cast<int64_t>(size)).c_str());
  if (dump_to_disk) dump_model_info(m, path);
  return kExitOk;
}

int cmd_list_passes() {
  for (const passes::PassInfo* p : passes::PassRegistry::instance().all())
    std::printf("%-34s %s%s\n", p->name.c_str(), p->default_on ? "" : "(off by default) ", p->description.c_str());
  return kExitOk;
}

int cmd_run(int argc, char** argv) {
  Options opts;
  std::vector<std::string> positional;
  std::string output_dir;
  bool save_inputs = false, fast = false;
  parse_args(argc, argv, 2, opts, positional, [&](int& i) {
    std::string a = argv[i];
    if (a == "--save-inputs") return save_inputs = true;
    if (a == "--fast") return fast = true;
    if (a == "--output-dir") {
      if (i + 1 >= argc) throw Error(kExitUsage, "--output-dir needs a folder");
      output_dir = argv[++i];
      return true;
    }
    return false;
  });
  if (positional.size() != 1) return usage_error("run takes one model file");
  const std::string& path = positional[0];
  Model model = Model::load(path);
  const ir::Model& m = api::ir_model(model);
  eval::InputSpec spec;
  spec.dims = opts.dims;
  spec.shapes = opts.input_shapes;
  spec.fill = api::input_fill(opts);
  for (const auto& p : opts.input_values) api::throw_if_error(eval::pin_input(m, p, spec));
  eval::Interpreter interp(m);
  interp.set_fast_float(fast);
  Status st = interp.check_supported();
  if (!st.is_ok()) api::throw_if_error(st.with_file(path));
  // The dims nothing fixes grow until the model runs, as in the check (driver/sizes.h).
  auto sized = driver::run_with_sizes(interp, m, spec, opts.seed);
  if (!sized) api::throw_if_error(Status(sized.status()).with_file(path));
  if (!sized.value().sizes.empty()) std::fprintf(stderr, "sizes: %s\n", sized.value().sizes.c_str());
  const auto& feeds = sized.value().feeds;
  const auto& out = sized.value().outputs;
  auto write_pb = [](const ir::Tensor& t, const std::string& file) {
    auto bytes = onnx_io::serialize_tensor_proto(t);
    api::throw_if_error(bytes.is_ok() ? Status::ok() : bytes.status());
    std::ofstream f(file, std::ios::binary);
    f << bytes.value();
    if (!f) throw Error(kExitIo, file + ": cannot write");
  };
  if (!output_dir.empty()) {
    std::error_code ec;
    fs::create_directories(output_dir, ec);
    if (save_inputs) {
      size_t k = 0;
      for (const ir::Value* v : m.graph->inputs())
        if (!v->is_initializer())
          write_pb(feeds.at(v->name()).tensor, output_dir + "/input_" + std::to_string(k++) + ".pb");
    }
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].is_tensor()) write_pb(out[i].tensor, output_dir + "/output_" + std::to_string(i) + ".pb");
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& v = out[i];
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
  Options opts;
  std::vector<std::string> positional;
  parse_args(argc, argv, 2, opts, positional);
  if (positional.size() != 2) return usage_error("verify takes two model files");
  Model a = Model::load(positional[0]);
  Model b = Model::load(positional[1]);
  Verification v = verify(a, b, opts);  // errors of the models name A's file
  print_check(v);
  return v.ok ? kExitOk : kExitMismatch;
}

int cmd_simplify(int argc, char** argv) {
  Options opts;
  std::vector<std::string> positional;
  parse_args(argc, argv, 1, opts, positional);
  if (opts.inspect) {
    if (positional.empty()) return usage_error("--inspect needs a model file");
    for (const auto& p : positional) cmd_inspect(p, opts.dump_to_disk);
    return kExitOk;
  }
  if (opts.dump_to_disk) return usage_error("--dump-to-disk: only with --inspect (as OnnxSlim)");
  // onnxsim's positional check_n: onnxsim IN OUT 3
  if (positional.size() == 3 && !positional[2].empty() &&
      positional[2].find_first_not_of("0123456789") == std::string::npos) {
    opts.set("check-n", positional[2]);
    positional.pop_back();
  }
  if (positional.size() != 2) return usage_error("expected IN.onnx OUT.onnx");
  if (std::string why = json_path_problem(opts.json_path, positional); !why.empty())
    return usage_error("--json " + opts.json_path + ": " + why + "; nothing was written");
  // --verbose: each stage (and each pass of each round) logged as it starts, instead of the
  // progress line.
  Progress progress(!opts.quiet && !opts.verbose);
  const auto start = std::chrono::steady_clock::now();
  std::string last_stage;
  opts.progress = [&](const std::string& stage, uint64_t d, uint64_t t) {
    if (opts.verbose && stage != last_stage) {
      last_stage = stage;
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "onnxtrim: %9.3f s  %s\n", s, stage.c_str());
    }
    progress.update(stage, d, t);
  };
  Report rep;
  try {
    rep = simplify_file(positional[0], positional[1], opts);
  } catch (const VerificationFailed& e) {
    progress.clear();
    print_check(e.report().verification);
    const bool json_written = write_json(opts.json_path, e.report().to_json()) == kExitOk;
    // The model is never written after a failed check; the reports asked for are (the library
    // writes the page and the plot, this the JSON), and the message says which.
    std::string written;
    auto wrote = [&](const char* what, const std::string& path) {
      written += (written.empty() ? "" : ", ") + std::string(what) + " " + path;
    };
    if (json_written && !opts.json_path.empty() && opts.json_path != "-") wrote("the JSON report", opts.json_path);
    if (!opts.report_html.empty()) wrote("the HTML report", opts.report_html);
    if (!opts.node_reduction_plot.empty()) wrote("the node plot", opts.node_reduction_plot);
    if (written.empty()) std::fprintf(stderr, "onnxtrim: error: %s; nothing was written\n", e.what());
    else
      std::fprintf(stderr, "onnxtrim: error: %s; %s was not written (written: %s)\n", e.what(), positional[1].c_str(),
                   written.c_str());
    return kExitMismatch;
  }
  progress.clear();
  if (opts.print) std::cout << Model::load(positional[1]).to_text();
  if (!opts.quiet) std::cout << rep.to_text();
  else if (!rep.verification.skipped.empty() && opts.verify != Options::Verify::kOff)
    std::fprintf(stderr, "onnxtrim: check skipped: %s\n", rep.verification.skipped.c_str());
  return write_json(opts.json_path, rep.to_json());
}

}  // namespace

// The CLI's entry point; also linked into the Python module (python3 -m onnxtrim).
int onnxtrim_cli_main(int argc, char** argv) {
  std::optional<support::CancelScope> cancel;
  if (g_handle_sigint) cancel.emplace(&g_interrupted);
  if (argc < 2) {
    std::fputs(help_text().c_str(), stderr);
    return kExitUsage;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    std::fputs(help_text().c_str(), stdout);
    return kExitOk;
  }
  if (first == "--version") {
    std::printf("onnxtrim %s\n", version());
    return kExitOk;
  }
  try {
    if (first == "--list-passes") return cmd_list_passes();
    if (first == "inspect") {
      if (argc != 3) return usage_error("inspect takes one model file");
      return cmd_inspect(argv[2]);
    }
    if (first == "run") return cmd_run(argc, argv);
    if (first == "verify") return cmd_verify(argc, argv);
    return cmd_simplify(argc, argv);
  } catch (const Error& e) {
    return fail(e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "onnxtrim: error: out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnxtrim: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

#ifndef ONNXTRIM_CLI_NO_MAIN
#ifdef ONNXTRIM_HAVE_MIMALLOC
// mimalloc's memory in 2 MB pages: a run takes far fewer page faults (swin_t: the whole run
// about a tenth faster, --no-passes a sixth). Set before any library's initializer runs
// (the executable's preinit functions come first), since mimalloc reads its options as it
// starts; MIMALLOC_LARGE_OS_PAGES in the environment still decides.
static void use_large_pages(int, char**, char** envp) {
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, "MIMALLOC_LARGE_OS_PAGES=", 24) == 0) return;
  mi_option_set(mi_option_large_os_pages, 1);
}
__attribute__((section(".preinit_array"), used)) static void (*const onnxtrim_preinit)(int, char**,
                                                                                       char**) = use_large_pages;
#endif
int main(int argc, char** argv) {
  g_handle_sigint = true;
  if (std::signal(SIGINT, on_sigint) == SIG_IGN) std::signal(SIGINT, SIG_IGN);  // ignored by the parent: stays so
  int rc = onnxtrim_cli_main(argc, argv);
  std::fflush(stdout);
  return rc;
}
#endif
