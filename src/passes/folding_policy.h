// The constant-folding policy, in one place (README "Folding policy" describes it):
//  - never fold non-deterministic ops (the registry's flag), ops of custom domains, ops the
//    evaluator lacks (reported once per op type), or nodes with subgraphs;
//  - size guard: a node whose folded outputs would take more bytes than its constant inputs
//    plus `size_threshold` stays a node; outputs that repeat one value ("splats": what
//    ConstantOfShape, Expand and Tile of a scalar make) larger than kSplatBytes are never
//    materialised unless that shrinks the model. So Tile/Expand/ConstantOfShape/Range and
//    broadcasting arithmetic cannot blow up the file;
//  - tiny outputs (<= kTinyBytes: shapes, scalars, indices) always fold.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace onnxtrim::passes {

constexpr uint64_t kDefaultSizeThreshold = 4096;
constexpr uint64_t kTinyBytes = 64;
constexpr uint64_t kSplatBytes = 64;

struct FoldDecision {
  bool fold = false;
  const char* why = "";  // when not folding
};

// Bytes a tensor occupies in a file (strings: their lengths).
uint64_t tensor_bytes(const ir::Tensor& t);
// Whether all elements of t are the same value (byte-wise).
bool is_splat(const ir::Tensor& t);
FoldDecision size_guard(uint64_t input_bytes, const std::vector<const ir::Tensor*>& outputs, uint64_t size_threshold);

}  // namespace onnxtrim::passes
