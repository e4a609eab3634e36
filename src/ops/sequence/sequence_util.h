// Helpers shared by the sequence ops: the type of a sequence of an element type, and the
// position input of SequenceInsert/SequenceErase.
#pragma once

#include <optional>

#include "ops/infer.h"
#include "ops/registry.h"

namespace onnxtrim::ops::sequence {

// A sequence whose elements are `elem` (its propagated values dropped: a sequence's elements
// carry none).
TypeInfo sequence_of(const TypeInfo& elem);

// The position that input `input` gives in a sequence of `size` elements (negative counts from
// the end): where to insert (0..size, default the end) or what to erase (0..size-1, default the
// last). nullopt when out of range.
std::optional<int64_t> position(const KernelContext& ctx, size_t input, int64_t size, bool insert);

}  // namespace onnxtrim::ops::sequence
