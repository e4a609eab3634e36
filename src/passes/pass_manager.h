// The simplification driver: runs a pipeline of registered passes over the main graph and
// every subgraph, to a fixed point, with statistics per pass.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eval/verify.h"
#include "ir/graph.h"
#include "ir/rewriter.h"
#include "support/status.h"

namespace onnxtrim::passes {

class Pass;
class RewriteRule;
struct PassInfo;
struct TargetInfo;

// A user rewrite rule of one run (user_rules.h): a pass named "user:NAME", run after the
// built-in passes in every round; a pattern rule also answers --explain.
struct UserPass {
  std::string name;
  std::function<std::unique_ptr<Pass>()> make;
  std::function<std::unique_ptr<RewriteRule>()> make_rule;  // empty for a callback
};

struct SimplifyOptions {
  std::vector<std::string> only;    // --passes a,b: run only these (in pipeline order)
  std::vector<std::string> skip;    // --skip a,b
  std::vector<std::string> enable;  // passes that are off by default (e.g. --target coreml)
  std::string target;               // "" or "coreml"
  bool strict = false;              // --strict: target warnings are errors
  int max_rounds = 10;              // fixed-point cap
  bool fail_on_cap = false;         // --test-convergence
  bool verify_ir = false;           // structural verifier after every pass (tests, debug builds)
  bool verify_each_pass = false;    // numbers after every pass (--verify-each-pass)
  int verify_samples = 1;
  uint64_t seed = 0;
  std::map<std::string, int64_t> dims;  // symbolic dims fixed for random inputs
  double rtol = 1e-4, atol = 1e-5;
  // Makes the checker of --verify-each-pass from the original (the API's, with every input
  // option); when empty, one is made from the fields above.
  std::function<Result<std::unique_ptr<eval::Verifier>>(const ir::Model&)> make_checker;
  // Shape inference: overrides, and whether inferred value_info is written into the model.
  std::map<std::string, std::vector<int64_t>> input_shapes;  // --input-shape (inference)
  bool write_value_info = true;                              // --no-value-info turns it off
  // Constant folding (folding_policy.h).
  uint64_t size_threshold = 4096;    // --size-threshold BYTES
  uint64_t max_folded_tensor = 0;    // --no-large-tensor SIZE: no cone leaves a tensor past SIZE (0: no cap)
  int64_t fold_budget = -1;          // --fold-budget BYTES; < 0: 1/16 of the model's tensor bytes, >= 64 KiB
  bool keep_constant_nodes = false;  // --keep-constant-nodes: do not turn Constant nodes into initializers
  // Called before each pass runs (round, pass name): the CLI shows it as progress.
  std::function<void(int, const std::string&)> on_pass;
  std::vector<UserPass> user_passes;  // --rewrite-rules, the APIs' callbacks
  // --graph-diff, --report: record which main-graph nodes each pass run removed, made and
  // edited (SimplifyResult::rewrites). Off: nothing is recorded.
  bool record_rewrites = false;
};

// What one pass did over a run: the report's per-pass figures (the API copies them into the
// public onnxtrim::PassStats).
struct PassStats {
  std::string name;
  int64_t runs = 0;
  int64_t changes = 0;
  int64_t nodes_removed = 0;  // removed minus added
  double seconds = 0;
};

// The main graph tree's size when a round ended (round 0: before the first).
struct RoundStats {
  int round = 0;
  int64_t nodes = 0;              // subgraph nodes included
  int64_t initializer_bytes = 0;  // subgraph initializers included
};

// One pass run that changed main-graph nodes (with SimplifyOptions::record_rewrites): the nodes
// it removed (as they were then), made and edited in place (as they were when it ended; a node
// whose body changed counts as edited). Nodes made and removed within the run are in neither.
struct RewriteRecord {
  std::string pass;
  int round = 0;
  std::vector<ir::NodeSnapshot> removed, added, changed;
};

struct SimplifyResult {
  std::vector<PassStats> passes;
  std::vector<RoundStats> round_stats;
  int rounds = 0;
  bool converged = true;
  std::vector<std::string> warnings;
  std::vector<RewriteRecord> rewrites;  // record_rewrites: in the order the passes ran
};

// Names of the default pipeline, in order.
std::vector<std::string> default_pipeline();
// Whether a run with these options runs the pass: on by default unless its target turns it
// off, or asked (--enable) or turned on by the target; with --passes, only those; never if
// skipped. `target` is opts.target's entry (nullptr for none).
bool pass_selected(const PassInfo& p, const SimplifyOptions& opts, const TargetInfo* target);
bool pass_selected(const std::string& name, const SimplifyOptions& opts);
// Checks --passes/--skip names; the error lists the known ones.
Status check_pass_names(const SimplifyOptions& opts);
Result<SimplifyResult> simplify(ir::Model& model, const SimplifyOptions& opts);

}  // namespace onnxtrim::passes
