// The constant-folding policy, in one place (README "Folding policy" describes it):
//  - never fold non-deterministic ops (the registry's flag), ops of custom domains, ops the
//    evaluator lacks (reported once per op type), or nodes with subgraphs;
//  - Constant nodes become initializers (the same bytes), unless --keep-constant-nodes;
//  - cones first: the nodes whose inputs are constant, directly or through each other, are
//    evaluated together, and each connected cone is judged by what it leaves behind: the
//    tensors that non-constant nodes (or graph outputs) read. Tiny ones fold; a large splat
//    stays one generator node (its own producer when that reads only tiny constants, else a
//    new ConstantOfShape) unless it copies a constant the model stores already; every other
//    one folds. The cone is accepted when the bytes it adds
//    (folded tensors minus the constants it frees) fit in the fold budget, which every
//    accepted cone draws from: by default 1/16 of the model's tensor bytes, at least 64 KiB
//    (--fold-budget). A cone that shrinks the model is always accepted;
//  - a cone that does not fit falls back to the node-by-node guard below:
//  - size guard: folding may not grow the model: a node's outputs must take no more bytes than
//    the constant inputs that folding frees (those only this node reads). The one allowance is
//    for generators from tiny inputs (Range(0, 512, 1) -> position ids): their outputs may
//    exceed the freed bytes by `size_threshold`, unless they repeat one value ("splats": what
//    ConstantOfShape, Expand and Tile of a scalar make, which stay generator nodes). So
//    Tile/Expand/ConstantOfShape/Range and broadcasting arithmetic cannot blow up the file;
//  - tiny outputs (<= kTinyBytes: shapes, scalars, indices) always fold;
//  - outputs whose size shape inference predicts past the guard are not even computed, and
//    what one evaluation may allocate is bounded (kFoldTensorBytes, kConeEvalCap) when it
//    cannot predict them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace onnxtrim::passes {

constexpr uint64_t kDefaultSizeThreshold = 4096;
constexpr uint64_t kTinyBytes = 64;
constexpr uint64_t kSplatBytes = 64;
// Cone evaluation limits: a node whose output would pass kConeEvalCap bytes is evaluated only
// when it frees as many bytes (a weight transform); the cone stops growing past kConeHoldCap
// bytes held at once (the rest waits for the next round).
constexpr uint64_t kConeEvalCap = uint64_t{64} << 20;
constexpr uint64_t kConeHoldCap = uint64_t{512} << 20;
constexpr uint64_t kMinFoldBudget = uint64_t{64} << 10;
// One evaluation may allocate tensors of at most max(kFoldTensorBytes, 4x its inputs, the
// cone's limit for the node), and 8x that in all: outputs past it are refused at their
// allocation even when shape inference could not predict their size.
constexpr uint64_t kFoldTensorBytes = 16ull << 20;

// The fold budget for a model whose tensors (initializers and Constant nodes, subgraphs
// included) take `model_bytes`: `requested` when >= 0, else max(kMinFoldBudget, model_bytes/16).
uint64_t fold_budget(uint64_t model_bytes, int64_t requested);

struct FoldDecision {
  bool fold = false;
  const char* why = "";  // when not folding
};

// Bytes a tensor occupies in a file (strings: their lengths).
uint64_t tensor_bytes(const ir::Tensor& t);
// Whether all elements of t are the same value (byte-wise).
bool is_splat(const ir::Tensor& t);
// Whether ConstantOfShape can produce element type t at default-domain opset `opset` (what a
// large splat can stay as).
bool generator_type(ir::DataType t, int64_t opset);
// freed_bytes: bytes of the constant inputs only this node reads; tiny_inputs: every input is
// at most kTinyBytes.
FoldDecision size_guard(uint64_t freed_bytes, bool tiny_inputs, const std::vector<const ir::Tensor*>& outputs,
                        uint64_t size_threshold);
// Before computing: false when outputs of `predicted_bytes` could never pass the guard.
bool may_fold(uint64_t predicted_bytes, uint64_t freed_bytes, bool tiny_inputs, uint64_t size_threshold);

}  // namespace onnxtrim::passes
