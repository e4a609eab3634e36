// The driver: one run of onnxtrim on a model in memory, as an ordered list of stages
// (driver.cc: overrides, inline, surgery, opset, passes, dtype, check, report), and the check's
// making (check.cc) that the public API's verify() shares. The API (src/api/) is a thin layer
// over it: loading and saving, the public Model, user callbacks, errors named by file.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eval/verify.h"
#include "ir/graph.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass_manager.h"
#include "support/status.h"
#include "surgery/surgery.h"

namespace onnxtrim::driver {

// Errors: a Status as the public Error with the CLI's exit code.
int exit_code_for(ErrorCode c);
void throw_if_error(const Status& st);

// Seconds on a steady clock; ends the stage begun at t0 in rep.stages (and rep.profile with
// --profile: the peak resident memory since the previous stage ended, then reset).
double now_s();
void end_stage(Report& rep, const Options& o, const char* name, double t0);

// The passes' options of o (without user rules: the caller adds them, see run()).
passes::SimplifyOptions simplify_options(const Options& o);
// --input-fill as the evaluator's InputSpec::Fill.
eval::InputSpec::Fill input_fill(const Options& o);
// onnxsim's unnamed `--overwrite-input-shape 1,3,224,224` given to the model's only input.
std::map<std::string, std::vector<int64_t>> resolve_shapes(const ir::Model& m,
                                                           std::map<std::string, std::vector<int64_t>> shapes);
// The inputs declared with the given shapes (a fixed dim replaced; only the rank may not change).
void fix_input_shapes(ir::Model& m, const std::map<std::string, std::vector<int64_t>>& shapes);

// The check's inputs as far as the options and the candidate fix them (--dim, --input-shape,
// --input, --input-fill, a dim the candidate declares fixed; sizes.h sizes the rest). A bad
// --input is returned in *error.
eval::InputSpec check_spec(const ir::Model& m, const ir::Model& candidate, const Options& o, std::string* error,
                           const std::map<std::string, std::string>& renamed = {});

// Multiply-adds of one run of m's main graph with every input dim fixed as `spec` fixes them
// (check.cc): what the check's budget (--verify-budget) is compared with.
double estimate_macs(const ir::Model& m, const eval::InputSpec& spec);

// The checker of `original` (check.cc): the original run on random inputs whose free dims grow
// until it runs. In auto mode whatever keeps the check from running is a reason to skip it
// (*skipped, nullptr returned); with --verify it is an error (thrown).
std::unique_ptr<eval::Verifier> make_checker(const ir::Model& original, const ir::Model& simplified, const Options& o,
                                             std::string* skipped, double* macs_out,
                                             const surgery::Plan* plan = nullptr, int stack = 0);
// The candidate against the checker's recorded outputs, as the report's Verification.
Verification run_check(const eval::Verifier& checker, const ir::Model& candidate, const Options& o,
                       const eval::CompareExtras& extras = {});

// Simplifies `m` in place and checks it: every stage of the list in driver.cc, in order, each
// doing nothing unless its options ask for it. `user` are the run's user rewrite rules as passes
// (the API makes them: a callback sees the public Model). Fills `rep` (stages, passes,
// verification, ...). Throws Error on failure; a check that finds differences is not thrown
// (rep.verification.ok says it).
void run(ir::Model& m, const Options& o, std::vector<passes::UserPass> user, Report& rep);

}  // namespace onnxtrim::driver
