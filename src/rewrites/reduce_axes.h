// Shared by fuse_layer_normalization and fuse_rms_normalization: the axes of a ReduceMean that
// reduces the last axes of its input and keeps them, read as the model's opset defines them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/graph.h"

namespace onnxtrim::passes {

// The first axis of `reduce` (a ReduceMean of a value of rank `rank`) when it reduces the last
// axes (in any order, each once) with keepdims 1; else nullopt with the reason in *why. Its axes
// are the attribute before opset 18 and a constant input from opset 18 on; the other way round
// is not valid ONNX for that opset (ONNX Runtime rejects it) and is refused rather than read.
// No axes (all of them, or none with noop_with_empty_axes) is refused.
std::optional<int64_t> trailing_reduce_axis(const ir::Node& reduce, int64_t opset, int64_t rank, std::string* why);

}  // namespace onnxtrim::passes
