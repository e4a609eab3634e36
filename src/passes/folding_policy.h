// The constant-folding policy, in one place (README "Folding policy" describes it):
//  - never fold non-deterministic ops (the registry's flag), ops of custom domains, ops the
//    evaluator lacks (reported once per op type), or nodes with subgraphs;
//  - size guard: folding may not grow the model: a node's outputs must take no more bytes than
//    the constant inputs that folding frees (those only this node reads). The one allowance is
//    for generators from tiny inputs (Range(0, 512, 1) -> position ids): their outputs may
//    exceed the freed bytes by `size_threshold`, unless they repeat one value ("splats": what
//    ConstantOfShape, Expand and Tile of a scalar make, which stay generator nodes). So
//    Tile/Expand/ConstantOfShape/Range and broadcasting arithmetic cannot blow up the file;
//  - tiny outputs (<= kTinyBytes: shapes, scalars, indices) always fold;
//  - outputs whose size shape inference predicts past the guard are not even computed, and
//    what a fold may allocate is bounded (kFoldTensorBytes) when it cannot predict them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace onnxtrim::passes {

constexpr uint64_t kDefaultSizeThreshold = 4096;
constexpr uint64_t kTinyBytes = 64;
constexpr uint64_t kSplatBytes = 64;
// One fold may allocate tensors of at most max(kFoldTensorBytes, 4x its inputs, its freed
// bytes + the size threshold), and 8x that in all: outputs past the guard are refused at
// their allocation even when shape inference could not predict their size.
constexpr uint64_t kFoldTensorBytes = 16ull << 20;

struct FoldDecision {
  bool fold = false;
  const char* why = "";  // when not folding
};

// Bytes a tensor occupies in a file (strings: their lengths).
uint64_t tensor_bytes(const ir::Tensor& t);
// Whether all elements of t are the same value (byte-wise).
bool is_splat(const ir::Tensor& t);
// freed_bytes: bytes of the constant inputs only this node reads; tiny_inputs: every input is
// at most kTinyBytes.
FoldDecision size_guard(uint64_t freed_bytes, bool tiny_inputs, const std::vector<const ir::Tensor*>& outputs,
                        uint64_t size_threshold);
// Before computing: false when outputs of `predicted_bytes` could never pass the guard.
bool may_fold(uint64_t predicted_bytes, uint64_t freed_bytes, bool tiny_inputs, uint64_t size_threshold);

}  // namespace onnxtrim::passes
