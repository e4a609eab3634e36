// Random inputs for a model, and verification: two models run on the same seeded inputs and
// their outputs compared, per output, as max abs / max relative difference.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "eval/compare.h"
#include "eval/interpreter.h"
#include "ir/graph.h"
#include "ir/runtime_value.h"
#include "support/status.h"

namespace onnxtrim::eval {

struct InputSpec {
  std::map<std::string, int64_t> dims;                 // --dim batch=2: named dims
  std::map<std::string, std::vector<int64_t>> shapes;  // --input-shape x:1,512: whole shapes
  std::map<std::string, ir::RuntimeValue> pinned;      // --input x=file.pb / x=16000
  int64_t default_dim = 1;                             // for dims nothing names
  // --input-fill: what the generated (not pinned) inputs hold.
  enum class Fill { kRandom, kOnes, kZeros, kArange };
  Fill fill = Fill::kRandom;
};

// Seeded random values for every graph input without an initializer. Floats are uniform in
// [-1, 1); integer inputs that index something (Gather indices, Embedding ids) stay within the
// indexed axis when the model tells its size, otherwise small non-negative ints; bools random.
// spec.fill other than kRandom: ones, zeros, or 0, 1, 2, ... (indices wrapped as above).
Result<std::map<std::string, ir::RuntimeValue>> make_random_inputs(const ir::Model& m, const InputSpec& spec,
                                                                   uint64_t seed);

struct VerifyOptions {
  int samples = 1;
  uint64_t seed = 0;
  InputSpec inputs;
  double rtol = 1e-4, atol = 1e-5;
  bool scaled = true;  // tolerances relative to each output's scale (compare.h)
  bool fast = false;   // float accumulation in Conv (Interpreter::set_fast_float)
  // Graph surgery (src/surgery): how the candidate's interface relates to the reference's.
  // Reference outputs fed to the candidate as its inputs of the same name (cut points), not
  // compared:
  std::vector<std::string> carried;
  std::map<std::string, std::string> renamed;  // reference name -> candidate name
  // > 1: each sample is `stack` runs of the reference (each on its own random inputs), joined
  // along axis 0 of `stacked` inputs (reference input or carried names; the others are shared:
  // the first run's) and of every output: the candidate sees one batch of `stack` samples.
  int stack = 0;
  std::vector<std::string> stacked;
};

struct OutputDiff {
  std::string name;
  Diff diff;
  // Not compared, and why ("" when compared): the output depends on a random op without a
  // counterpart in the other model.
  std::string not_comparable;
};

// How the random ops (is_random_op) of the two models were handled. Both run each sample with
// the same random stream (Interpreter::set_random_seed), so a node both keep (matched by its
// RandomIdentity) draws the same values in both; an output that depends on an unseeded node of
// one model without a counterpart in the other is not compared.
struct RandomHandling {
  std::vector<std::string> alike;      // unseeded, in both models: "RandomNormalLike 'noise1'"
  std::vector<std::string> unmatched;  // unseeded, in one model only: "... (only in the original)"
  int seeded = 0;                      // with a `seed` attribute (the reference's): alike anyway
  bool any() const { return !alike.empty() || !unmatched.empty() || seeded > 0; }
  // One line for people: "2 drawn alike in both models (RandomNormalLike 'a', RandomNormalLike 'b')".
  std::string summary() const;
};

struct VerifyReport {
  bool ok = true;
  std::string why;                  // first failing output
  std::vector<OutputDiff> outputs;  // worst over all samples
  RandomHandling random;
};

// The random ops of a model and what each graph output depends on (through subgraphs and
// model-local functions): the RandomIdentity of every unseeded random node whose values can
// reach it. Values named in `cut` (the reference's values fed to the candidate as inputs at
// its cut points) carry no dependence.
struct RandomFacts {
  std::vector<std::pair<std::string, std::string>> unseeded;  // identity, description; graph order
  int seeded = 0;
  std::vector<std::set<std::string>> output_deps;  // per graph output
};
RandomFacts random_facts(const ir::Model& m, const std::vector<std::string>& cut = {});

// How one comparison departs from the defaults (the check of a precision conversion).
struct CompareExtras {
  double l2_tol = 0;               // > 0: float outputs pass on relative L2 error (compare_tensors_l2)
  bool cast_float_inputs = false;  // a float feed is cast to the candidate's float input type
  Interpreter::Observer observer;  // sees every node of the candidate's runs
};

// Holds the reference model's feeds and outputs, to compare candidates against.
class Verifier {
 public:
  static Result<std::unique_ptr<Verifier>> create(const ir::Model& reference, const VerifyOptions& opts);
  Result<VerifyReport> compare_with(const ir::Model& candidate) const { return compare_with(candidate, {}); }
  Result<VerifyReport> compare_with(const ir::Model& candidate, const CompareExtras& extras) const;
  // The random (or pinned) inputs of each sample.
  const std::vector<std::map<std::string, ir::RuntimeValue>>& feeds() const { return feeds_; }
  // The values given to every symbolic dim of the inputs (for the report).
  const std::map<std::string, int64_t>& dims_used() const { return dims_used_; }
  // Which sizes the free dims got and why (eval::explain_sizes), for the report.
  void set_sizes(std::string s) { sizes_ = std::move(s); }
  const std::string& sizes() const { return sizes_; }

 private:
  VerifyOptions opts_;
  std::vector<std::string> output_names_;
  std::vector<std::map<std::string, ir::RuntimeValue>> feeds_;
  std::vector<std::vector<ir::RuntimeValue>> expected_;
  std::map<std::string, int64_t> dims_used_;
  std::string sizes_;
  // Random ops: each sample's stream seed (both models), the reference's random facts (the
  // dependence of each compared output), and whether draws can match at all (not when a sample
  // of the candidate stacks several runs of the reference).
  std::vector<uint64_t> stream_seeds_;
  RandomFacts ref_random_;
  std::vector<std::set<std::string>> ref_deps_;  // per compared output
  bool draws_can_match_ = true;
};

}  // namespace onnxtrim::eval

namespace onnxtrim::eval {
// Parses the CLI's input-pinning forms into `spec`:
//   "name=file.pb" (a TensorProto file) or "name=16000" (a number; the input's dtype, filled
//   to its shape, which must then be known from the model, --input-shape or --dim)
Status pin_input(const ir::Model& m, const std::string& arg, InputSpec& spec);
// "name:1,3,224,224" -> spec.shapes; "batch=2" -> spec.dims.
Status parse_input_shape(const std::string& arg, InputSpec& spec);
Status parse_dim(const std::string& arg, InputSpec& spec);
// A NumPy .npy file's array (C order, little-endian numeric or bool).
Result<ir::Tensor> parse_npy(const std::string& bytes);
}  // namespace onnxtrim::eval
