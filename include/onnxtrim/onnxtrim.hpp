// onnxtrim: simplify ONNX models (C++ API).
//
// The one header a C++ program includes. No protobuf type and no internal header shows through:
// a model is an opaque onnxtrim::Model, options are onnxtrim::Options (whose fields are the
// command line's options, settable by their CLI names), and every failure is an onnxtrim::Error
// that carries the CLI's exit code and its one-line message.
//
//   onnxtrim::Model m = onnxtrim::Model::load("model.onnx");
//   onnxtrim::Options o;
//   o.set("dim", "batch=1");
//   onnxtrim::Report r = onnxtrim::simplify(m, o);   // checked against the original by default
//   m.save("model.simplified.onnx");
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnxtrim {

// "0.2.0"
const char* version();

// The CLI's exit codes; Error::exit_code() is one of them.
enum ExitCode : int {
  kExitOk = 0,
  kExitMismatch = 1,     // the check found outputs that differ
  kExitUsage = 2,        // bad option or argument
  kExitIo = 3,           // file missing, unreadable or unwritable
  kExitParse = 4,        // not an ONNX model
  kExitInvalid = 5,      // invalid model
  kExitUnsupported = 6,  // an operator the evaluator lacks, a custom domain
  kExitInternal = 70,    // a bug
  kExitInterrupted = 130,
};

class Error : public std::runtime_error {
 public:
  // The message as given, with bytes that are not printable (control characters, bytes that are
  // not well-formed UTF-8: a name read from a damaged file) written as \xNN.
  Error(int exit_code, const std::string& message);
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

// One option of the table that the CLI, the C API and the Python package all read.
struct OptionInfo {
  std::string name;     // long name without "--": "dim", "skip", "overwrite-input-shape"
  std::string metavar;  // "" for a flag; "NAME=V" ...
  std::string help;
  std::string group;  // "simplify", "check", "inputs", "save", "output", "onnxsim", "onnxslim"
  bool repeatable = false;
  bool optional_value = false;  // the value may be left out ("--no-large-tensor [SIZE]")
  bool multi_value = false;     // CLI takes every following word that is not an option
};
const std::vector<OptionInfo>& option_table();

class Model;

// A user rewrite rule written as code (docs/rewrite-rules.md): called once per round of the
// fixed point, after the built-in passes, as the pass "user:NAME". It gets a copy of the model as
// it is, edits or replaces it (model = Model::parse(...)) and returns whether it changed it; the
// graph inputs and outputs must stay as they are (by name). An exception fails the run with an
// Error naming the rule. The result is checked like any run's.
struct RewriteCallback {
  std::string name;
  std::function<bool(Model& model)> rewrite;
};

struct Options {
  // simplification
  bool run_passes = true;            // --no-passes: load and save only
  std::vector<std::string> passes;   // --passes: only these
  std::vector<std::string> skip;     // --skip
  int max_rounds = 10;               // --max-rounds
  bool test_convergence = false;     // --test-convergence
  bool constant_folding = true;      // --no-constant-folding
  uint64_t size_threshold = 4096;    // --size-threshold BYTES
  uint64_t max_folded_tensor = 0;    // --no-large-tensor SIZE (onnxsim): no folded tensor past SIZE (0: none)
  int64_t fold_budget = -1;          // --fold-budget BYTES (< 0: 1/16 of the model's tensor bytes, >= 64 KiB)
  bool keep_constant_nodes = false;  // --keep-constant-nodes
  bool inline_functions = false;     // --inline-functions: calls of model-local functions become their bodies
  bool graph_diff = false;           // --graph-diff: the report says which nodes, values and initializers changed
  bool profile = false;              // --profile: time and peak memory of each stage
  std::string node_reduction_plot;   // --node-reduction-plot FILE: an SVG of nodes per round ("" none)
  // User rewrite rules (docs/rewrite-rules.md): --rewrite-rules FILE (pattern/replacement pairs of
  // ONNX functions, NAME and NAME_replacement), and callbacks; each is the pass "user:NAME".
  std::vector<std::string> rewrite_rules;
  // --custom-op-schema FILE: output types and shapes of custom ops (docs/custom-ops.md), for this run only.
  std::vector<std::string> custom_op_schemas;
  std::vector<RewriteCallback> rewriters;
  bool value_info = true;     // --no-value-info
  std::string target;         // --target coreml
  std::string dtype;          // --dtype fp16|bf16|fp32 ("": no conversion)
  int64_t opset = 0;          // --opset N: convert the default domain to opset N (0: no conversion)
  bool keep_io_types = true;  // --keep-io-types / --no-keep-io-types
  bool strict = false;        // --strict
  // The result is simplified for these sizes, and its inputs declare them.
  std::map<std::string, int64_t> dims;                       // --dim NAME=V
  std::map<std::string, std::vector<int64_t>> input_shapes;  // --input-shape NAME:D,D
  // surgery, before the passes (names are the original model's; --rename acts last)
  std::vector<std::string> cut_inputs;   // --inputs x,y: these values become the graph inputs
  std::vector<std::string> cut_outputs;  // --outputs a,b: these values become the graph outputs
  std::vector<std::string> add_outputs;  // --add-outputs a,b ("all": every node output of the main graph)
  std::vector<std::string>
      unused_outputs;  // --unused-output a b (onnxsim): graph outputs removed, with what only they need
  std::vector<std::pair<std::string, std::string>> rename;  // --rename old=new
  std::string batch;                                        // --batch N | dynamic ("" unchanged)
  // the check (original vs result on random inputs)
  enum class Verify { kAuto, kOn, kOff };
  Verify verify = Verify::kAuto;          // auto: on unless it cannot run or costs too much; --verify / --no-verify
  bool verify_each_pass = false;          // --verify-each-pass
  int samples = 0;                        // --samples (0: 1 for simplify, 3 for verify)
  uint64_t seed = 0;                      // --seed
  double rtol = 1e-4, atol = 1e-5;        // --rtol, --atol
  std::vector<std::string> input_values;  // --input NAME=FILE.pb|FILE.npy|NUMBER
  std::map<std::string, std::vector<int64_t>> check_input_shapes;  // shapes of the check's inputs only
  std::string input_fill = "random";  // --input-fill random|ones|zeros|arange: the check's generated inputs
  double verify_budget_gmac = 20;     // --verify-budget: auto check skipped above this many GMAC per sample
  // saving
  std::string external_data = "auto";  // --external-data auto|always|never
  std::string external_location;       // --external-location
  uint64_t external_threshold = 1024;  // --external-threshold
  // output (CLI)
  bool quiet = false, print = false;
  std::string json_path;      // --json FILE
  std::string report_html;    // --report FILE.html (turns on profile and graph_diff)
  bool inspect = false;       // --inspect (OnnxSlim): print a summary instead of simplifying
  bool dump_to_disk = false;  // --dump-to-disk (OnnxSlim), with --inspect: STEM_model_info.csv
  bool verbose = false;       // --verbose (CLI): log each stage and pass on stderr as it starts
  std::string explain;        // --explain NODE (a node or value name): why each rewrite rooted at it does not fire

  // Sets an option by its CLI long name (without "--"); flags take "" (or "true"/"false").
  // Throws Error(kExitUsage) naming the option on an unknown name or a bad value.
  void set(std::string_view name, std::string_view value = {});

  // Progress (stage name, done, total) and cancellation: the run stops with
  // Error(kExitInterrupted) soon after *cancel becomes true.
  std::function<void(const std::string&, uint64_t, uint64_t)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

struct ModelStats {
  int64_t nodes = 0;  // every node, subgraphs included
  int64_t top_level_nodes = 0;
  std::map<std::string, int64_t> op_histogram;  // "Conv", "com.microsoft.Attention"
  int64_t initializers = 0;
  int64_t initializer_bytes = 0;
  int64_t file_bytes = -1;  // -1: not known
};

struct PassStats {
  std::string name;
  int64_t runs = 0;
  int64_t changes = 0;
  int64_t nodes_removed = 0;
  double seconds = 0;
};

struct OutputCheck {
  std::string name;
  double max_abs = 0;  // largest |result - original|
  double max_rel = 0;  // largest |result - original| / max(|original|, the output's RMS)
  double scale = 0;    // the output's RMS on the original
  double rel_l2 = 0;   // ||result - original||_2 / ||original||_2 (float outputs)
  bool ok = true;
  std::string why;  // first difference; or, when not comparable, why
  // false: not compared, because the output depends on a random op without a counterpart in
  // the other model (docs/check.md, random ops); ok stays true.
  bool comparable = true;
};

struct Verification {
  bool ran = false;
  bool ok = true;
  std::string skipped;  // why the check did not run ("" when it ran)
  int samples = 0;
  double rtol = 0, atol = 0;
  double l2_tol = 0;                    // --dtype: float outputs pass on relative L2 error <= l2_tol (rtol/atol unused)
  std::map<std::string, int64_t> dims;  // values given to symbolic dims
  // The sizes the check chose for the dims nothing fixed, and why ("" when none was free):
  // "seq=512: the original fails on seq=8 and seq=64 (...); batch=1: looks like a batch".
  std::string sizes;
  std::vector<OutputCheck> outputs;
  std::string why;  // first failing output
  // What the result was compared against when surgery changed the interface ("" otherwise):
  // the original's values at the cut points, stacked samples for a changed batch.
  std::string compared;
  // Random ops (RandomNormal(Like), RandomUniform(Like), Bernoulli, Multinomial, Dropout in
  // training): both models draw the same values for the unseeded ones they both keep (matched
  // by node name); outputs that depend on one without a counterpart are not compared.
  std::string random;                         // for people ("" when the models have none)
  std::vector<std::string> random_alike;      // "RandomNormalLike 'noise1'"
  std::vector<std::string> random_unmatched;  // "RandomNormalLike 'n3' (only in the original)"
  int random_seeded = 0;                      // nodes with a `seed` attribute (deterministic)

  // The JSON of the check: the report's "verification" object (Report::to_json).
  std::string to_json() const;
};

// --dtype: what the precision conversion did.
struct Conversion {
  std::string dtype;  // "" when no conversion ran; else "fp16", "bf16" or "fp32"
  bool keep_io_types = true;
  int64_t converted_nodes = 0;
  int64_t casts_added = 0;
  int64_t initializers_converted = 0;
  bool ranges_observed = false;  // the model ran once to find values out of range (false: it could not)
  struct Kept {
    std::string node;
    std::string reason;
  };
  std::vector<Kept> kept;  // nodes whose float computation stays in float32, and why
};

// --inline-functions: what the inlining did.
struct FunctionInlining {
  bool ran = false;
  int64_t calls = 0;                      // call nodes replaced by their function's body (nested calls included)
  std::vector<std::string> inlined;       // "domain:name" of each function inlined
  std::vector<std::string> removed;       // functions removed from the model (nothing calls them now)
  std::vector<std::string> opsets_added;  // "domain=version": imports the functions' bodies needed
};

// --graph-diff: what the run changed in the main graph, the original against the result.
struct GraphDiff {
  bool ran = false;
  struct NodeRef {
    std::string name;  // "" for an unnamed node
    std::string op;    // "Conv", "com.microsoft.Gelu"
    std::vector<std::string> outputs;
  };
  // Nodes are matched by name (same name and op), else by op and input names.
  std::vector<NodeRef> removed, added;
  int64_t kept = 0;
  // Kept nodes edited in place: other input names, attributes (bodies are not compared) or output
  // names; `what` says which ("inputs; attributes alpha").
  struct NodeChange {
    NodeRef node;  // as in the result
    std::string what;
  };
  std::vector<NodeChange> changed;
  struct OpCount {
    std::string op;
    int64_t before = 0, after = 0;
  };
  std::vector<OpCount> ops;  // the op types whose count changed
  struct ValueChange {
    std::string name, before, after;  // types as text: "float[1,3,224,224]"
  };
  std::vector<ValueChange> values;  // values of both graphs whose declared or inferred type differs
  struct InitChange {
    std::string name;
    int64_t bytes_before = -1, bytes_after = -1;  // -1: absent on that side
  };
  // Changed: another type, shape or contents (tensors still to be computed lazily are compared
  // by type and shape only).
  std::vector<InitChange> initializers_added, initializers_removed, initializers_changed;
  // Graph inputs and outputs added, removed or retyped ("y: float[2,3] -> float[N,3]", "added z").
  std::vector<std::string> inputs, outputs;
  // Which pass did what: each pass run that removed, made or edited main-graph nodes, in the
  // order they ran. removed: as the nodes were when erased; added and changed (edited in place,
  // or a body of theirs changed): as they were when the pass run ended. A node made and removed
  // within one run is in neither list; one made by a run and removed by a later one is in both.
  struct Rewrite {
    std::string pass;
    int round = 0;
    std::vector<NodeRef> removed, added, changed;
  };
  std::vector<Rewrite> rewrites;
};

// --profile: one stage of the run. peak_bytes: the peak resident memory during the stage (from the
// end of the previous one), -1 where it is not measured (the browser build, no /proc).
struct StageProfile {
  std::string name;
  double seconds = 0;
  int64_t peak_bytes = -1;
};

// The model's size when a round of the passes ended (round 0: before the first); subgraphs included.
struct RoundStats {
  int round = 0;
  int64_t nodes = 0;
  int64_t initializer_bytes = 0;
};

// --opset: what the opset conversion did.
struct OpsetConversion {
  int64_t from = 0, to = 0;     // 0: no conversion ran
  int64_t nodes_converted = 0;  // nodes whose op version changed
  int64_t nodes_rewritten = 0;  // of those, nodes whose attributes, inputs or neighbours changed
  int64_t nodes_expanded = 0;   // nodes replaced by their function body (no version at the target)
  std::vector<std::string> notes;
};

// A fusion into a standard ONNX op (docs/passes.md, "Standard-op fusions"): the op it writes and
// the opset that has it; how many this run wrote; and, when the model's opset is older, how many
// blocks of that form it holds (what --opset `opset` would fuse) and the runtimes that run it.
struct Fusion {
  std::string pass;  // "fuse_attention"
  std::string op;    // "Attention"
  int64_t opset = 0;
  int64_t fused = 0;
  int64_t would_fuse = 0;
  std::string runtimes;  // "ONNX Runtime >= 1.23"
};

struct Report {
  std::string input_path, output_path;
  Conversion conversion;
  OpsetConversion opset;
  FunctionInlining inlining;
  GraphDiff graph_diff;
  ModelStats before, after;
  std::vector<std::pair<std::string, double>> stages;  // name, seconds
  std::vector<PassStats> passes;
  std::vector<Fusion> fusions;  // only those that wrote or would write something
  int rounds = 0;
  std::vector<RoundStats> round_stats;  // the passes' rounds, round 0 first (empty when no pass ran)
  std::vector<StageProfile> profile;    // --profile
  bool converged = true;
  std::vector<std::string> warnings;
  std::vector<std::string> surgery;  // what --inputs/--outputs/--add-outputs/--batch/--rename did
  Verification verification;
  // --explain NODE: each rewrite rooted at the node's op type and "fires" or why it does not, on
  // the simplified graph (one entry with an empty rewrite when no such node or rewrite exists).
  std::string explain_node;
  std::vector<std::pair<std::string, std::string>> explain;

  std::string to_text() const;
  std::string to_json() const;
};

// Thrown by simplify()/simplify_file() when the check finds that the result computes other
// outputs than the original (exit code 1); report() says which and by how much. The message
// starts with the input file's path when the model came from a file.
class VerificationFailed : public Error {
 public:
  explicit VerificationFailed(Report r, const std::string& file = "")
      : Error(kExitMismatch, (file.empty() ? std::string() : file + ": ") +
                                 "the simplified model computes different outputs: " + r.verification.why),
        report_(std::move(r)) {}
  const Report& report() const noexcept { return report_; }

 private:
  Report report_;
};

// A tensor crossing the API: ONNX element type code (TensorProto.DataType), shape and bytes.
// `data` points at `nbytes` bytes kept alive by `owner` (which may be the caller's buffer:
// nothing is copied on the way in). Strings use `strings`.
struct Tensor {
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  size_t nbytes = 0;
  std::shared_ptr<const void> owner;
  std::vector<std::string> strings;
};

class Model {
 public:
  static Model load(const std::string& path);  // external data beside the file
  static Model parse(const void* data, size_t size, const std::string& base_dir = "");
  static Model parse_text(const std::string& onnx_text);  // the ONNX text syntax
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();
  Model clone() const;

  // Writes through a temporary file renamed into place; external data per `opts`.
  void save(const std::string& path, const Options& opts = {}) const;
  std::string serialize() const;  // one buffer (fails past 2 GB)
  std::string to_text() const;    // printed graph
  ModelStats stats() const;
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  friend struct ModelAccess;  // the library's own access (src/api)
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Simplifies in place and (by default) checks the result against the original before
// returning. Throws Error(kExitMismatch) when they differ (the model is then left simplified:
// discard it). Errors of a model loaded by Model::load name its file, as the CLI's do.
Report simplify(Model& model, const Options& opts = {});
// Loads, simplifies, checks and saves (streaming external data: for models past 2 GB).
// Nothing is written when anything fails.
Report simplify_file(const std::string& in_path, const std::string& out_path, const Options& opts = {});

// Runs both models on the same random inputs (opts: samples, seed, rtol, atol, dims,
// input_shapes, input_values) and compares every output.
Verification verify(const Model& reference, const Model& candidate, const Options& opts = {});

// The reference evaluator.
std::map<std::string, Tensor> run(const Model& model, const std::map<std::string, Tensor>& feeds, bool fast = false);

// Writes inferred types and shapes (symbolic dims as dim_param expressions) as value_info.
void infer_shapes(Model& model, const Options& opts = {});

// A summary as JSON: inputs/outputs with shapes, opsets, op histogram, sizes.
std::string inspect_json(const Model& model);

}  // namespace onnxtrim
