// The sizes given to the symbolic dims of a model's inputs that nothing fixes (no --dim,
// --input-shape or --input): the check, `verify` and `onnxtrim run` choose them alike, by
// growing them until the original model runs (issue 29).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "eval/interpreter.h"
#include "eval/verify.h"
#include "ir/graph.h"
#include "passes/shape_inference.h"
#include "support/status.h"

namespace onnxtrim::driver {

// One way to size the free dims: `spec` is the given eval::InputSpec with every free dim set (a named
// dim in spec.dims, one value for all its uses; an input with an unnamed free dim gets its whole
// shape in spec.shapes).
struct SizeCandidate {
  eval::InputSpec spec;
  int64_t length = 0;  // the size of the dims that grow (0: no dim grows)
  // Every free dim and its value, in input order: "seq" for a named dim, "x[1]" for dim 1 of
  // input x when it has no name.
  std::vector<std::pair<std::string, int64_t>> dims;
  std::vector<std::string> batches;  // those given 1 because they look like a batch
  // The dims raised to what the facts require: "x[2] >= 100 for node 'producing c (Conv)'".
  std::vector<std::string> from_facts;
};

// Shape inference's options fixing what `spec` fixes: its dims, its shapes, and the shapes of
// the tensors it pins.
passes::InferOptions infer_options(const eval::InputSpec& spec);

// The sizes to try, in order. From the facts (shape inference, main graph only): a dim that a
// Reshape to a fixed shape determines (the data's element count depends on it alone) gets that
// size; a dim that sizes a spatial dim of a Conv's or a pool's output, or an STFT's frames,
// starts where that output has one element (a kernel or frame of 400: 400). Then the dims that
// grow get 8, 64, 512, 4096 (never below the facts); dims that look like a batch get 1 (a dim
// named like one - batch, batch_size, N, b, bs ... -, a named dim found only as the leading dim
// of inputs of rank >= 2, an unnamed leading dim of an input of rank >= 2). A dim whose role is
// unclear (unnamed: the only dim of a rank-1 input, or the only unknown dim of an input of rank
// >= 3, as an LSTM state's [2, ?, 128]; named: leading in one input and not in another, or only
// the dim of rank-1 inputs) is tried at each size as a length, then as a batch. Candidates whose
// random inputs would hold more than `max_elements` elements are left out (the first is always
// kept). One candidate, the given spec, when no dim is free.
std::vector<SizeCandidate> size_candidates(const ir::Model& m, const eval::InputSpec& given,
                                           int64_t max_elements = int64_t{1} << 24);

// A dim name that means a batch: batch, batch_size, batchsize, nbatch, N, B, bs, ... (any name
// containing "batch").
bool looks_like_batch(const std::string& dim_name);

// "batch=1, seq=512, x[1]=512" ("" when no dim is free).
std::string describe_sizes(const SizeCandidate& c);

// Which sizes were used and why, for the report: `chosen` ran, the candidates before it failed
// with `failures` (one per earlier candidate). "" when no dim is free. For example
// "seq=512, x[1]=512: the original fails on seq=8, x[1]=8 and seq=64, x[1]=64 (Conv 'c': kernel
// is larger than the padded input); batch=1: looks like a batch".
std::string explain_sizes(const std::vector<SizeCandidate>& cands, size_t chosen, const std::vector<Status>& failures);

// When no candidate ran: "sizes tried: seq=8 ... seq=4096" ("" when no dim is free).
std::string sizes_tried(const std::vector<SizeCandidate>& cands);

// One run of `m` in `interp` on seeded random inputs, the free dims sized by the first of
// size_candidates on which it runs (`onnxtrim run` without size options). On failure: the last
// error, naming the sizes tried and the flags that give sizes.
struct SizedRun {
  std::map<std::string, ir::RuntimeValue> feeds;
  std::vector<ir::RuntimeValue> outputs;
  std::string sizes;  // explain_sizes ("" when no dim was free)
};
Result<SizedRun> run_with_sizes(const eval::Interpreter& interp, const ir::Model& m, const eval::InputSpec& given,
                                uint64_t seed);

}  // namespace onnxtrim::driver
