// The table of options: one entry per option, read by the CLI (parsing and --help), the C API
// (onnxtrim_options_set) and the Python package (keyword arguments and the compat layers).
// onnxsim's and OnnxSlim's flags are entries too: each maps onto onnxtrim's own options, or is
// refused with a line saying what to use instead.
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "onnx_io/onnx_io.h"
#include "passes/targets.h"
#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim {

namespace {

[[noreturn]] void bad(std::string_view option, const std::string& why) {
  throw Error(kExitUsage, "--" + std::string(option) + ": " + why);
}

bool parse_flag(std::string_view name, std::string_view v) {
  if (v.empty() || v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  bad(name, "takes no value (or true/false), not '" + std::string(v) + "'");
}

int64_t parse_int(std::string_view name, std::string_view v, int64_t lo) {
  std::string s(v);
  char* end = nullptr;
  long long n = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end || n < lo) bad(name, "needs an integer >= " + std::to_string(lo) + ", not '" + s + "'");
  return n;
}

double parse_double(std::string_view name, std::string_view v) {
  std::string s(v);
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !std::isfinite(d) || d < 0) bad(name, "needs a non-negative number, not '" + s + "'");
  return d;
}

// "4096", "1KB", "1.5MB", "2GiB", "512k" -> bytes (onnxsim's --no-large-tensor takes such sizes).
uint64_t parse_bytes(std::string_view name, std::string_view v) {
  std::string s(v);
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || d < 0 || !std::isfinite(d)) bad(name, "needs a size in bytes, not '" + s + "'");
  std::string unit(end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double mul = 1;
  if (unit.empty() || unit == "B") mul = 1;
  else if (unit == "K" || unit == "KB" || unit == "KIB") mul = 1024;
  else if (unit == "M" || unit == "MB" || unit == "MIB") mul = 1024.0 * 1024;
  else if (unit == "G" || unit == "GB" || unit == "GIB") mul = 1024.0 * 1024 * 1024;
  else bad(name, "unknown size unit in '" + s + "' (B, KB, MB, GB)");
  return static_cast<uint64_t>(d * mul);
}

std::vector<std::string> split(std::string_view v, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : v) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Space-separated words (the CLI joins a multi-value option's words with spaces).
std::vector<std::string> words(std::string_view v) { return split(v, ' '); }

void add_unique(std::vector<std::string>& list, const std::string& s) {
  for (const auto& x : list)
    if (x == s) return;
  list.push_back(s);
}

// ---- names in lists and in NAME:VALUE / NAME=VALUE pairs
//
// A value name may hold any character (TensorFlow's "input_1:0", "mid x", "a,b"). So that every
// name can be given, a double-quoted part of a list item or of a pair is literal: no separator
// inside it counts, and inside the quotes \" and \\ stand for " and \ (other backslashes are
// kept: Windows paths). The Python package passes every name quoted, one option occurrence per
// name. Unquoted, the separators are: spaces and commas between the names of --inputs/--outputs/
// --add-outputs, spaces between the NAME:SHAPE items of onnxsim's and OnnxSlim's flags, commas
// between --rename's pairs; in a pair, the LAST ':' where the value is a shape or a file (a shape
// never holds ':', a file name rarely does, a TensorFlow name often) and the last '=' of --dim
// NAME=V (an integer), but the FIRST '=' of --input NAME=FILE and --rename OLD=NEW.

// Calls f(i, quoted) for every character of v that is not quoting syntax (a quote, the backslash
// of an escape inside quotes).
template <typename F>
void scan_quoted(std::string_view option, std::string_view v, F&& f) {
  bool quoted = false;
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (c == '"') {
      quoted = !quoted;
      continue;
    }
    if (quoted && c == '\\' && i + 1 < v.size() && (v[i + 1] == '"' || v[i + 1] == '\\')) ++i;
    f(i, quoted);
  }
  if (quoted) bad(option, "unterminated quote in '" + std::string(v) + "'");
}

// The items of a list: v cut at every unquoted character of `seps`, empty items dropped; each
// item keeps its quotes (see unquote()).
std::vector<std::string> list_items(std::string_view option, std::string_view v, std::string_view seps) {
  std::vector<std::string> out;
  size_t start = 0;
  auto cut = [&](size_t end) {
    if (end > start) out.emplace_back(v.substr(start, end - start));
    start = end + 1;
  };
  scan_quoted(option, v, [&](size_t i, bool quoted) {
    if (!quoted && seps.find(v[i]) != std::string_view::npos) cut(i);
  });
  cut(v.size());
  return out;
}

std::string unquote(std::string_view option, std::string_view raw) {
  std::string s;
  scan_quoted(option, raw, [&](size_t i, bool) { s += raw[i]; });
  return s;
}

// A pair "NAME<sep>VALUE" cut at its last (or first) unquoted `sep`; both halves unquoted.
struct Pair {
  bool found = false;
  std::string name, value;
};
Pair split_pair(std::string_view option, std::string_view raw, char sep, bool last) {
  size_t pos = std::string_view::npos;
  scan_quoted(option, raw, [&](size_t i, bool quoted) {
    if (!quoted && raw[i] == sep && (last || pos == std::string_view::npos)) pos = i;
  });
  Pair p;
  if (pos == std::string_view::npos) {
    p.value = unquote(option, raw);
    return p;
  }
  p.found = true;
  p.name = unquote(option, raw.substr(0, pos));
  p.value = unquote(option, raw.substr(pos + 1));
  return p;
}

// "a,b c", "\"mid x\"" -> names of --inputs/--outputs/--add-outputs (OnnxSlim's spelling is
// space-separated words; OnnxSlim's unquoted "NAME:DTYPE" retyping is refused).
void add_names(std::vector<std::string>& list, std::string_view option, std::string_view v) {
  for (const auto& item : list_items(option, v, " ,")) {
    Pair p = split_pair(option, item, ':', true);
    const std::string& t = p.value;
    if (p.found && (t == "fp16" || t == "fp32" || t == "int32" || t == "int64" || t == "bool" || t == "bf16"))
      bad(option, "'" + item +
                      "': changing the type of a cut point is not supported (give the name alone, "
                      "in double quotes if it is a name with a ':')");
    std::string name = unquote(option, item);
    if (name.empty()) bad(option, "an empty name");
    add_unique(list, name);
  }
}

// NAME=V (the last '=': V is an integer).
void add_dim(std::map<std::string, int64_t>& dims, std::string_view name, std::string_view arg) {
  Pair p = split_pair(name, arg, '=', true);
  if (!p.found || p.name.empty()) bad(name, "needs NAME=VALUE, not '" + std::string(arg) + "'");
  int64_t v = parse_int(name, p.value, 0);
  auto it = dims.find(p.name);
  if (it != dims.end() && it->second != v) bad(name, "'" + p.name + "' given twice with different values");
  dims[p.name] = v;
}

// "name:1,3,224,224" (the last ':': a shape holds none); onnxsim also takes "1,3,224,224" alone
// for a model of one input (name "").
void add_shape(std::map<std::string, std::vector<int64_t>>& shapes, std::string_view name, std::string_view arg,
               bool allow_unnamed) {
  Pair p = split_pair(name, arg, ':', true);
  if (!p.found && !allow_unnamed) bad(name, "needs NAME:D1,D2,..., not '" + std::string(arg) + "'");
  if (p.found && p.name.empty()) bad(name, "an empty input name in '" + std::string(arg) + "'");
  std::vector<int64_t> dims;
  for (const auto& d : split(p.value, ',')) dims.push_back(parse_int(name, d, 0));
  auto it = shapes.find(p.name);
  if (it != shapes.end() && it->second != dims) bad(name, "'" + p.name + "' given twice with different shapes");
  shapes[p.name] = dims;
}

// NAME=FILE|NUMBER of --input, as eval::pin_input reads it (which cuts at the first '=').
std::string input_value(std::string_view option, const std::string& name, const std::string& what,
                        std::string_view arg) {
  if (name.empty() || what.empty())
    bad(option, "needs NAME=FILE.pb, NAME=FILE.npy or NAME=NUMBER, not '" + std::string(arg) + "'");
  if (name.find('=') != std::string::npos)
    bad(option, "'" + name + "': an input whose name holds '=' cannot be pinned");
  return name + "=" + what;
}

// OnnxSlim's fusion-pattern names -> onnxtrim's passes. Patterns with no counterpart here (onnxtrim
// never applies them) are accepted: skipping them changes nothing.
const std::map<std::string, std::vector<std::string>>& onnxslim_patterns() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"FusionPadConv", {"fuse_pad_conv"}},
      {"FusionConvBN", {"fuse_conv_bn"}},
      {"FusionConvAdd", {"fuse_conv_add"}},
      {"FusionConvMul", {"fuse_conv_mul"}},
      {"FusionGemm", {"fuse_matmul_add", "fuse_gemm_bias", "fuse_gemm_mul", "fuse_transpose_gemm"}},
      {"FusionMatMulBN", {"fuse_matmul_bn"}},
      {"EliminationSlice", {"fuse_consecutive_slices", "fuse_concat_of_slices"}},
      {"EliminationReshape", {"fuse_consecutive_ops"}},
      {"EliminationTranspose", {"fuse_consecutive_ops"}},
      {"EliminationUnsqueeze", {"fuse_consecutive_ops"}},
      {"EliminationConcat", {"fuse_concat_of_slices"}},
      {"FusionGelu", {}},
      {"FusionReduce", {}},
      {"FusionLayerNorm", {}},
  };
  return m;
}

// onnxsim's optimizer names (onnxoptimizer's passes, for --skip-optimization NAME ... and
// skipped_optimizers=[...]) -> the onnxtrim passes that do their work (which may do more: skipping
// eliminate_nop_transpose skips every per-op no-op fold). Names onnxtrim has no counterpart for
// (it never applies them) are accepted: skipping them changes nothing.
const std::map<std::string, std::vector<std::string>>& onnxsim_optimizers() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"fuse_bn_into_conv", {"fuse_conv_bn"}},
      {"fuse_add_bias_into_conv", {"fuse_conv_add"}},
      {"fuse_matmul_add_bias_into_gemm", {"fuse_matmul_add"}},
      {"fuse_pad_into_conv", {"fuse_pad_conv"}},
      {"fuse_pad_into_pool", {"fuse_pad_conv"}},
      {"fuse_transpose_into_gemm", {"fuse_transpose_gemm"}},
      {"fuse_consecutive_transposes", {"fuse_consecutive_ops"}},
      {"fuse_consecutive_squeezes", {"fuse_consecutive_ops"}},
      {"fuse_consecutive_unsqueezes", {"fuse_consecutive_ops"}},
      {"fuse_consecutive_squeeze_unsqueeze", {"fuse_consecutive_ops"}},
      {"fuse_consecutive_slices", {"fuse_consecutive_slices"}},
      {"fuse_concat_into_reshape", {"simplify_shape_chains"}},
      {"eliminate_identity", {"eliminate_identity"}},
      {"eliminate_deadend", {"eliminate_dead_nodes"}},
      {"eliminate_unused_initializer", {"eliminate_unused_initializers"}},
      {"eliminate_duplicate_initializer", {"eliminate_duplicate_constants"}},
      {"eliminate_common_subexpression", {"eliminate_common_subexpressions"}},
      {"eliminate_if_with_const_cond", {"inline_constant_if"}},
      {"eliminate_consecutive_idempotent_ops", {"eliminate_idempotent_ops"}},
      {"eliminate_nop_with_unit", {"eliminate_identity_elements"}},
      {"eliminate_nop_cast", {"eliminate_nop_ops"}},
      {"eliminate_nop_concat", {"eliminate_nop_ops"}},
      {"eliminate_nop_dropout", {"eliminate_nop_ops"}},
      {"eliminate_nop_expand", {"eliminate_nop_ops"}},
      {"eliminate_nop_flatten", {"eliminate_nop_ops"}},
      {"eliminate_nop_pad", {"eliminate_nop_ops"}},
      {"eliminate_nop_reshape", {"eliminate_nop_ops"}},
      {"eliminate_nop_split", {"eliminate_nop_ops"}},
      {"eliminate_nop_transpose", {"eliminate_nop_ops"}},
      {"eliminate_shape_op", {"fold_constants"}},
      {"eliminate_shape_gather", {"fold_constants"}},
      {"eliminate_slice_after_shape", {"fold_constants"}},
      {"extract_constant_to_initializer", {}},  // handled by the caller: --keep-constant-nodes
      {"eliminate_nop_monotone_argmax", {}},
      {"fuse_consecutive_concats", {}},
      {"fuse_consecutive_log_softmax", {}},
      {"fuse_consecutive_reduce_unsqueeze", {}},
      {"fuse_qkv", {}},
      {"adjust_add", {}},
      {"adjust_slice_and_matmul", {}},
      {"replace_einsum_with_matmul", {}},
      {"rewrite_input_dtype", {}},
      {"rewrite_where", {}},
      {"rename_input_output", {}},
      {"set_unique_name_for_nodes", {}},
      {"lift_lexical_references", {}},
      {"split_init", {}},
      {"split_predict", {}},
      {"nop", {}},
  };
  return m;
}

struct Entry {
  OptionInfo info;
  std::function<void(Options&, std::string_view)> apply;
};

Entry flag(std::string name, std::string group, std::string help, std::function<void(Options&, bool)> f) {
  std::string n = name;
  return Entry{OptionInfo{std::move(name), "", std::move(help), std::move(group)},
               [n, f](Options& o, std::string_view v) { f(o, parse_flag(n, v)); }};
}

Entry value(std::string name, std::string metavar, std::string group, std::string help,
            std::function<void(Options&, std::string_view)> f, bool repeatable = false) {
  std::string n = name;
  OptionInfo info{std::move(name), std::move(metavar), std::move(help), std::move(group)};
  info.repeatable = repeatable;
  return Entry{info, [n, f](Options& o, std::string_view v) {
                 if (v.empty()) bad(n, "needs a value");
                 f(o, v);
               }};
}

// e taking several values after its name (--outputs a b, as onnxsim's and OnnxSlim's CLIs do).
Entry multi(Entry e) {
  e.info.multi_value = true;
  return e;
}

Entry refuse(std::string name, std::string metavar, std::string group, std::string instead) {
  std::string n = name;
  OptionInfo info{std::move(name), std::move(metavar), "not supported: " + instead, std::move(group)};
  info.optional_value = true;
  info.multi_value = !info.metavar.empty();
  return Entry{info, [n, instead](Options&, std::string_view) { bad(n, "is not supported by onnxtrim: " + instead); }};
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = [] {
    std::vector<Entry> t;
    // --- simplification
    t.push_back(flag("no-passes", "simplify", "load and save without touching the graph (a lossless round trip)",
                     [](Options& o, bool b) { o.run_passes = !b; }));
    t.push_back(value("passes", "a,b", "simplify", "run only these passes (in pipeline order)",
                      [](Options& o, std::string_view v) { o.passes = split(v, ','); }));
    t.push_back(value(
        "skip", "a,b", "simplify", "run the default pipeline without these passes",
        [](Options& o, std::string_view v) {
          for (auto& p : split(v, ',')) add_unique(o.skip, p);
        },
        true));
    t.push_back(
        value("max-rounds", "N", "simplify", "fixed-point cap (default 10)",
              [](Options& o, std::string_view v) { o.max_rounds = static_cast<int>(parse_int("max-rounds", v, 1)); }));
    t.push_back(flag("test-convergence", "simplify", "fail (exit 70) if the cap is hit before a fixed point",
                     [](Options& o, bool b) { o.test_convergence = b; }));
    t.push_back(flag("no-constant-folding", "simplify", "do not fold constants",
                     [](Options& o, bool b) { o.constant_folding = !b; }));
    t.push_back(value("size-threshold", "BYTES", "simplify",
                      "a node is folded only if its outputs exceed the constant inputs it frees by at most BYTES "
                      "(default 4096; units KB, MB allowed); large splats are never materialised",
                      [](Options& o, std::string_view v) { o.size_threshold = parse_bytes("size-threshold", v); }));
    t.push_back(value(
        "fold-budget", "BYTES", "simplify",
        "bytes that folding whole constant cones may add to the model's tensors (default: 1/16 of "
        "them, at least 64 KiB; units KB, MB allowed)",
        [](Options& o, std::string_view v) { o.fold_budget = static_cast<int64_t>(parse_bytes("fold-budget", v)); }));
    t.push_back(flag("keep-constant-nodes", "simplify", "keep Constant nodes instead of turning them into initializers",
                     [](Options& o, bool b) { o.keep_constant_nodes = b; }));
    t.push_back(flag("inline-functions", "simplify",
                     "replace each call of a function the model defines (ModelProto.functions) by the function's "
                     "body, nested calls too; functions nothing calls any more are removed",
                     [](Options& o, bool b) { o.inline_functions = b; }));
    t.push_back(value(
        "rewrite-rules", "FILE", "simplify",
        "your own rewrites, run in every round after the built-in passes as the passes user:NAME: "
        "pattern/replacement pairs of ONNX functions NAME and NAME_replacement, in a .onnx model's "
        "functions or an ONNX text file of functions (docs/rewrite-rules.md)",
        [](Options& o, std::string_view v) { add_unique(o.rewrite_rules, std::string(v)); }, true));
    t.push_back(value(
        "custom-op-schema", "FILE", "simplify",
        "custom ops (a domain of your own): their output types and shapes as a JSON list of rules, or "
        "what they compute as ONNX functions (a .onnx model's or ONNX text), whose bodies shape "
        "inference, the check and folding then run (docs/custom-ops.md); for this run only",
        [](Options& o, std::string_view v) { add_unique(o.custom_op_schemas, std::string(v)); }, true));
    t.push_back(flag("no-value-info", "simplify", "do not write the inferred shapes into OUT as value_info",
                     [](Options& o, bool b) { o.value_info = !b; }));
    t.push_back(value("target", "NAME", "simplify",
                      "simplify for a runtime: coreml (no tensor of rank > 5), wasm (ONNX Runtime Web: no "
                      "RotaryEmbedding), tensorrt and openvino (also GroupNormalization and Swish)",
                      [](Options& o, std::string_view v) {
                        if (!passes::find_target(v))
                          bad("target",
                              "unknown target '" + std::string(v) + "' (known: " + passes::target_names() + ")");
                        o.target = std::string(v);
                      }));
    t.push_back(flag("strict", "simplify", "with --target: anything the target cannot take is an error (exit 6)",
                     [](Options& o, bool b) { o.strict = b; }));
    t.push_back(value(
        "dim", "NAME=V", "simplify",
        "fix a named dim: the result is simplified for that size, its inputs declare it, and the check's "
        "random inputs have it",
        [](Options& o, std::string_view v) { add_dim(o.dims, "dim", v); }, true));
    t.push_back(value(
        "input-shape", "NAME:D,D", "simplify",
        "an input's whole shape (cut at the last ':', so NAME may be TensorFlow's input_1:0): the result is "
        "simplified for it and declares it (as --dim); a dim the model fixes is replaced too, the "
        "check runs the original at that shape; the rank cannot change",
        [](Options& o, std::string_view v) { add_shape(o.input_shapes, "input-shape", v, false); }, true));
    // --- surgery (before the passes; checked against the original's values at the cut points)
    t.push_back(multi(value(
        "inputs", "x,y", "surgery",
        "cut: these values (of the original) become the graph inputs, typed as inferred; what "
        "they make unnecessary goes (also OnnxSlim's --inputs NAME ...)",
        [](Options& o, std::string_view v) { add_names(o.cut_inputs, "inputs", v); }, true)));
    t.push_back(multi(value(
        "outputs", "a,b", "surgery",
        "cut: these values become the graph outputs; what no longer reaches an output goes (also "
        "OnnxSlim's --outputs NAME ...); a name holding a space or a comma goes in double quotes",
        [](Options& o, std::string_view v) { add_names(o.cut_outputs, "outputs", v); }, true)));
    t.push_back(value(
        "add-outputs", "all|a,b", "surgery",
        "mark intermediate values as extra graph outputs (all: every node output of the main graph), "
        "before the passes, so that they survive simplification",
        [](Options& o, std::string_view v) { add_names(o.add_outputs, "add-outputs", v); }, true));
    t.push_back(value(
        "rename", "old=new,...", "surgery", "rename graph inputs/outputs of the result, and every use (subgraphs too)",
        [](Options& o, std::string_view v) {
          for (const auto& item : list_items("rename", v, ",")) {
            Pair p = split_pair("rename", item, '=', false);
            if (!p.found || p.name.empty() || p.value.empty()) bad("rename", "needs OLD=NEW, not '" + item + "'");
            o.rename.emplace_back(p.name, p.value);
          }
        },
        true));
    t.push_back(value("batch", "N|dynamic", "surgery",
                      "N: fix the leading dim of every graph input to N; dynamic: free a batch dim that the export "
                      "fixed (a symbolic 'batch'), or stop naming the node that bakes it in",
                      [](Options& o, std::string_view v) {
                        if (v != "dynamic") parse_int("batch", v, 1);
                        o.batch = std::string(v);
                      }));
    // --- the check
    t.push_back(flag("verify", "check",
                     "check the result against the original even where the default would skip it (a costly "
                     "model); an operator the evaluator lacks is then an error",
                     [](Options& o, bool b) { o.verify = b ? Options::Verify::kOn : Options::Verify::kAuto; }));
    t.push_back(flag("no-verify", "check", "do not check the result against the original",
                     [](Options& o, bool b) { o.verify = b ? Options::Verify::kOff : Options::Verify::kAuto; }));
    t.push_back(flag("verify-each-pass", "check",
                     "after every pass that changed something, compare with the original; stop naming the first "
                     "pass that changed the numbers",
                     [](Options& o, bool b) { o.verify_each_pass = b; }));
    t.push_back(value("verify-budget", "GMAC", "check",
                      "the default check is skipped (and says so) when one sample costs more than this many "
                      "multiply-adds, in billions (default 20)",
                      [](Options& o, std::string_view v) { o.verify_budget_gmac = parse_double("verify-budget", v); }));
    t.push_back(
        value("samples", "N", "inputs", "random samples (default 1 when simplifying, 3 for verify)",
              [](Options& o, std::string_view v) { o.samples = static_cast<int>(parse_int("samples", v, 1)); }));
    t.push_back(value("seed", "S", "inputs", "random seed (default 0)",
                      [](Options& o, std::string_view v) { o.seed = static_cast<uint64_t>(parse_int("seed", v, 0)); }));
    t.push_back(value("rtol", "X", "inputs", "relative tolerance of the check (default 1e-4)",
                      [](Options& o, std::string_view v) { o.rtol = parse_double("rtol", v); }));
    t.push_back(value("atol", "X", "inputs", "absolute tolerance of the check (default 1e-5)",
                      [](Options& o, std::string_view v) { o.atol = parse_double("atol", v); }));
    t.push_back(value(
        "input", "NAME=FILE|NUMBER", "inputs",
        "pin an input of the check to a TensorProto .pb or NumPy .npy file, or fill it with a number "
        "(cut at the first '=': a path may hold one)",
        [](Options& o, std::string_view v) {
          Pair p = split_pair("input", v, '=', false);  // the first '=': a name rarely holds one
          o.input_values.push_back(input_value("input", p.name, p.value, v));
        },
        true));
    t.push_back(value("input-fill", "random|ones|zeros|arange", "inputs",
                      "what the check's generated inputs hold (pinned inputs aside): random (default: floats uniform "
                      "in [-1, 1), integers small or within the axis they index), ones, zeros, or arange (0, 1, 2, "
                      "... in row-major order; integers that index an axis wrap at its size, bools alternate)",
                      [](Options& o, std::string_view v) {
                        if (v != "random" && v != "ones" && v != "zeros" && v != "arange")
                          bad("input-fill", "needs random, ones, zeros or arange, not '" + std::string(v) + "'");
                        o.input_fill = std::string(v);
                      }));
    // --- saving
    t.push_back(value("external-data", "MODE", "save",
                      "auto (default): external tensors stay external, and everything goes external past 2 GB; "
                      "always: every tensor of at least --external-threshold bytes; never: one file",
                      [](Options& o, std::string_view v) {
                        if (v != "auto" && v != "always" && v != "never")
                          bad("external-data", "needs auto, always or never, not '" + std::string(v) + "'");
                        o.external_data = std::string(v);
                      }));
    t.push_back(value("external-location", "NAME", "save", "external-data file name, beside OUT (default OUT.data)",
                      [](Options& o, std::string_view v) {
                        // The model names this file: refused as the loader would refuse it.
                        std::string why = onnx_io::external_location_problem(v);
                        if (!why.empty()) bad("external-location", "'" + std::string(v) + "' " + why);
                        o.external_location = std::string(v);
                      }));
    t.push_back(
        value("external-threshold", "BYTES", "save", "smaller tensors stay inside the model file (default 1024)",
              [](Options& o, std::string_view v) { o.external_threshold = parse_bytes("external-threshold", v); }));
    // --- output
    t.push_back(value("json", "FILE", "output", "also write the report as JSON to FILE (\"-\" for stdout)",
                      [](Options& o, std::string_view v) { o.json_path = std::string(v); }));
    t.push_back(flag("quiet", "output", "print nothing but errors", [](Options& o, bool b) { o.quiet = b; }));
    t.push_back(
        flag("print", "output", "print the resulting graph in text form", [](Options& o, bool b) { o.print = b; }));
    t.push_back(flag("graph-diff", "output",
                     "the report lists what the run changed in the main graph: nodes removed and added, op counts, "
                     "values whose type changed, initializers added, removed and changed, graph inputs and outputs",
                     [](Options& o, bool b) { o.graph_diff = b; }));
    t.push_back(flag("profile", "output",
                     "the report gives each stage's time and peak memory (load, inline, surgery, opset, simplify, "
                     "convert, check, save) and the passes by time with their runs",
                     [](Options& o, bool b) { o.profile = b; }));
    t.push_back(value("node-reduction-plot", "FILE", "output",
                      "write the nodes and initializer bytes after each round of the passes as an SVG line chart",
                      [](Options& o, std::string_view v) { o.node_reduction_plot = std::string(v); }));
    t.push_back(value("report", "FILE.html", "output",
                      "write the report as one self-contained HTML page (no script, nothing fetched): before/after "
                      "counts, op histogram, nodes per round, time and memory per stage and pass, the check's table "
                      "and the graph diff with links between removed nodes and the nodes that replaced them; "
                      "turns on --profile and --graph-diff",
                      [](Options& o, std::string_view v) {
                        if (v.empty() || v == "-") bad("report", "needs a file name (not stdout)");
                        o.report_html = std::string(v);
                        o.profile = true;
                        o.graph_diff = true;
                      }));
    t.push_back(value("explain", "NODE", "output",
                      "report why each rewrite rooted at the op type of NODE (a node of the result, or the value it "
                      "makes) does not fire",
                      [](Options& o, std::string_view v) { o.explain = std::string(v); }));

    // --- onnxsim's flags
    t.push_back(multi(value(
        "overwrite-input-shape", "NAME:D,D ...", "onnxsim",
        "= --input-shape for each (a shape without a name: the model's only input)",
        [](Options& o, std::string_view v) {
          for (const auto& w : list_items("overwrite-input-shape", v, " "))
            add_shape(o.input_shapes, "overwrite-input-shape", w, true);
        },
        true)));
    {
      // onnxsim: alone, no optimizer at all; with onnxoptimizer pass names, only those skipped.
      Entry e = value(
          "skip-optimization", "NAME ...", "onnxsim",
          "alone: = --passes infer_shapes,fold_constants,eliminate_dead_nodes,"
          "eliminate_unused_initializers,eliminate_unused_value_info (shape inference and folding only); "
          "with onnxoptimizer names (fuse_bn_into_conv ...): = --skip of the onnxtrim passes doing their work",
          [](Options& o, std::string_view v) {
            if (v.empty() || v == "true" || v == "1") {
              o.passes = {"infer_shapes", "fold_constants", "eliminate_dead_nodes", "eliminate_unused_initializers",
                          "eliminate_unused_value_info"};
              return;
            }
            if (v == "false" || v == "0") return;
            for (const auto& w : words(v))
              for (const auto& n : split(w, ',')) {
                auto it = onnxsim_optimizers().find(n);
                if (it == onnxsim_optimizers().end())
                  bad("skip-optimization", "unknown onnxsim optimizer '" + n +
                                               "' (onnxoptimizer's pass names, such as fuse_bn_into_conv; "
                                               "onnxtrim's own passes: --skip)");
                if (n == "extract_constant_to_initializer") o.keep_constant_nodes = true;
                for (const auto& p : it->second) add_unique(o.skip, p);
              }
          },
          true);
      e.apply = [f = e.apply](Options& o, std::string_view v) { f(o, v.empty() ? std::string_view("true") : v); };
      e.info.optional_value = true;
      e.info.multi_value = true;
      t.push_back(e);
    }
    t.push_back(flag("skip-constant-folding", "onnxsim", "= --no-constant-folding",
                     [](Options& o, bool b) { o.constant_folding = !b; }));
    t.push_back(multi(value(
        "test-input-shape", "NAME:D,D ...", "onnxsim",
        "the check's random input of that shape; the model stays dynamic (a shape without a name: the "
        "model's only input)",
        [](Options& o, std::string_view v) {
          for (const auto& w : list_items("test-input-shape", v, " "))
            add_shape(o.check_input_shapes, "test-input-shape", w, true);
        },
        true)));
    t.push_back(flag("skip-fuse-bn", "onnxsim", "= --skip fuse_conv_bn,fuse_matmul_bn", [](Options& o, bool b) {
      if (b) {
        add_unique(o.skip, "fuse_conv_bn");
        add_unique(o.skip, "fuse_matmul_bn");
      }
    }));
    {
      Entry e = value("no-large-tensor", "SIZE", "onnxsim",
                      "= --size-threshold SIZE (default 1KB), and no folded constant computation leaves a tensor "
                      "larger than SIZE; onnxtrim never materialises large splats anyway",
                      [](Options& o, std::string_view v) {
                        o.size_threshold = parse_bytes("no-large-tensor", v);
                        o.max_folded_tensor = o.size_threshold;
                      });
      e.info.optional_value = true;
      auto inner = e.apply;
      e.apply = [inner](Options& o, std::string_view v) { inner(o, v.empty() ? std::string_view("1KB") : v); };
      t.push_back(e);
    }
    t.push_back(value("check-n", "N", "onnxsim", "= --samples N (0: --no-verify)", [](Options& o, std::string_view v) {
      int64_t n = parse_int("check-n", v, 0);
      if (n == 0) {
        o.verify = Options::Verify::kOff;
      } else {
        o.samples = static_cast<int>(n);
        o.verify = Options::Verify::kOn;
      }
    }));
    t.push_back(flag("skip-shape-inference", "onnxsim",
                     "= --no-value-info (shapes are still reasoned with, never written)",
                     [](Options& o, bool b) { o.value_info = !b; }));
    t.push_back(
        flag("include-subgraph", "onnxsim", "accepted: subgraphs are always simplified", [](Options&, bool) {}));
    t.push_back(
        flag("dynamic-input-shape", "onnxsim", "accepted: dynamic shapes are always kept", [](Options&, bool) {}));
    t.push_back(refuse("input-data-path", "NAME:FILE ...", "onnxsim", "use --input NAME=FILE.pb (or FILE.npy)"));
    t.push_back(refuse("custom-lib", "LIB", "onnxsim",
                       "custom-domain operators are kept as they are, with nothing to load; the check is skipped "
                       "for models that use them"));
    // onnxsim: these graph outputs are dropped, and the simplifier removes what only they used.
    t.push_back(multi(value(
        "unused-output", "NAME ...", "onnxsim",
        "remove these graph outputs, and what only they need (the cut of --outputs with every other "
        "output kept); each must be a graph output, and one must stay",
        [](Options& o, std::string_view v) { add_names(o.unused_outputs, "unused-output", v); }, true)));
    t.push_back(
        refuse("mutable-initializer", "", "onnxsim", "initializers that are also graph inputs are never folded"));

    // --- OnnxSlim's flags
    t.push_back(multi(value(
        "input-shapes", "NAME:D,D ...", "onnxslim", "= --overwrite-input-shape",
        [](Options& o, std::string_view v) {
          for (const auto& w : list_items("input-shapes", v, " ")) add_shape(o.input_shapes, "input-shapes", w, false);
        },
        true)));
    t.push_back(flag("model-check", "onnxslim", "= --verify", [](Options& o, bool b) {
      if (b) o.verify = Options::Verify::kOn;
    }));
    t.push_back(multi(value(
        "model-check-inputs", "NAME:D,D|NAME:FILE.npy ...", "onnxslim",
        "cut at the last ':' (input_1:0:x.npy is input_1:0's file; quote a path holding ':'); a shape: the "
        "check's random input of that shape (= --input-shape for the check only); a .npy or .pb "
        "file: = --input NAME=FILE",
        [](Options& o, std::string_view v) {
          for (const auto& w : list_items("model-check-inputs", v, " ")) {
            // The last ':', as OnnxSlim: "input_1:0:x.npy" is input_1:0's file.
            Pair p = split_pair("model-check-inputs", w, ':', true);
            if (!p.found || p.name.empty())
              bad("model-check-inputs", "needs NAME:D,D or NAME:FILE.npy, not '" + w + "'");
            const std::string& rest = p.value;
            bool file = rest.size() > 4 && (rest.ends_with(".npy") || rest.ends_with(".pb"));
            if (file) o.input_values.push_back(input_value("model-check-inputs", p.name, rest, w));
            else add_shape(o.check_input_shapes, "model-check-inputs", w, false);
          }
          if (o.verify == Options::Verify::kAuto) o.verify = Options::Verify::kOn;
        },
        true)));
    t.push_back(multi(value(
        "skip-fusion-patterns", "PATTERN ...", "onnxslim",
        "OnnxSlim pattern names (FusionPadConv, FusionConvBN, FusionGemm, EliminationSlice, ...) or "
        "onnxtrim pass names: = --skip of the matching passes",
        [](Options& o, std::string_view v) {
          for (const auto& w : words(v)) {
            auto it = onnxslim_patterns().find(w);
            if (it != onnxslim_patterns().end()) {
              for (const auto& p : it->second) add_unique(o.skip, p);
            } else if (w.find('_') != std::string::npos) {
              add_unique(o.skip, w);  // an onnxtrim pass name (checked when the run starts)
            } else {
              std::string known;
              for (const auto& [k, _] : onnxslim_patterns()) known += (known.empty() ? "" : ", ") + k;
              bad("skip-fusion-patterns",
                  "unknown pattern '" + w + "' (known: " + known + ", or an onnxtrim pass name)");
            }
          }
        },
        true)));
    t.push_back(multi(value(
        "skip-optimizations", "NAME ...", "onnxslim",
        "OnnxSlim's optimization names: constant_folding (= --no-constant-folding), graph_fusion "
        "(every pass an OnnxSlim fusion pattern maps to, see --skip-fusion-patterns), "
        "dead_node_elimination, subexpression_elimination, weight_tying (= --skip "
        "eliminate_dead_nodes, eliminate_common_subexpressions, eliminate_duplicate_constants)",
        [](Options& o, std::string_view v) {
          for (const auto& w : list_items("skip-optimizations", v, " ,")) {
            if (w == "constant_folding") {
              o.constant_folding = false;
            } else if (w == "graph_fusion") {
              for (const auto& [_, ps] : onnxslim_patterns())
                for (const auto& p : ps) add_unique(o.skip, p);
            } else if (w == "dead_node_elimination") {
              add_unique(o.skip, "eliminate_dead_nodes");
            } else if (w == "subexpression_elimination") {
              add_unique(o.skip, "eliminate_common_subexpressions");
            } else if (w == "weight_tying") {
              add_unique(o.skip, "eliminate_duplicate_constants");
            } else {
              bad("skip-optimizations", "unknown optimization '" + w +
                                            "' (known: constant_folding, graph_fusion, "
                                            "dead_node_elimination, subexpression_elimination, "
                                            "weight_tying; onnxtrim's own passes: --skip)");
            }
          }
        },
        true)));
    t.push_back(
        flag("verbose", "onnxslim",
             "the CLI logs each stage and each pass of each round on stderr as it starts, with the seconds since "
             "the start, instead of the progress line (OnnxSlim's debug log); the report is the same",
             [](Options& o, bool b) { o.verbose = b; }));
    t.push_back(flag("dump-to-disk", "onnxslim",
                     "with --inspect: also write IN's nodes to STEM_model_info.csv in the current folder (appended; "
                     "NodeName, OpType, OutputDtype, OutputShape: one row per node output, shapes as inferred)",
                     [](Options& o, bool b) { o.dump_to_disk = b; }));
    t.push_back(flag("save-as-external-data", "onnxslim", "= --external-data always",
                     [](Options& o, bool b) { o.external_data = b ? "always" : "auto"; }));
    t.push_back(flag("inspect", "onnxslim", "= onnxtrim inspect IN: print a summary of the model, write nothing",
                     [](Options& o, bool b) { o.inspect = b; }));
    t.push_back(flag("no-shape-infer", "onnxslim", "= --no-value-info", [](Options& o, bool b) { o.value_info = !b; }));
    // --- precision conversion (also OnnxSlim's --dtype)
    t.push_back(
        value("dtype", "fp16|bf16|fp32", "simplify",
              "convert float computation and weights to float16 or bfloat16 (or back to float32), keeping "
              "in float32 what must stay; checked by relative L2 error per output (1e-2 fp16, 5e-2 bf16)",
              [](Options& o, std::string_view v) {
                if (v != "fp16" && v != "bf16" && v != "fp32" && v != "float16" && v != "bfloat16" && v != "float32")
                  bad("dtype", "needs fp16, bf16 or fp32, not '" + std::string(v) + "'");
                o.dtype = v == "float16" ? "fp16" : v == "bfloat16" ? "bf16" : v == "float32" ? "fp32" : std::string(v);
              }));
    t.push_back(value("opset", "N", "simplify",
                      "convert the default ONNX domain to opset N, up or down (every subgraph and local function): "
                      "attribute/input moves, ops too new for N expanded from their function bodies; checked "
                      "against the original",
                      [](Options& o, std::string_view v) { o.opset = parse_int("opset", v, 1); }));
    t.push_back(flag("keep-io-types", "simplify",
                     "with --dtype: inputs and outputs keep their types, with Casts at the boundary (default on)",
                     [](Options& o, bool b) { o.keep_io_types = b; }));
    t.push_back(flag("no-keep-io-types", "simplify", "with --dtype: inputs and outputs take the new type too",
                     [](Options& o, bool b) { o.keep_io_types = !b; }));
    return t;
  }();
  return table;
}

}  // namespace

const std::vector<OptionInfo>& option_table() {
  static const std::vector<OptionInfo> infos = [] {
    std::vector<OptionInfo> v;
    for (const auto& e : entries()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

void Options::set(std::string_view name, std::string_view value) {
  std::string n(name);
  if (n.rfind("--", 0) == 0) n = n.substr(2);
  for (char& c : n)
    if (c == '_') c = '-';  // Python keyword spelling
  for (const auto& e : entries())
    if (e.info.name == n) {
      e.apply(*this, value);
      return;
    }
  throw Error(kExitUsage, "unknown option '--" + n + "'");
}

}  // namespace onnxtrim
