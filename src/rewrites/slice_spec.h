// Shared by fuse_consecutive_slices, fuse_concat_of_slices and the rotary fusions: a Slice's
// constant parameters per (non-negative) axis, and resolving a step-1 window to non-negative
// bounds.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace onnxtrim::passes {

struct AxisWindow {
  int64_t start = 0, end = 0, step = 1;
};

// The Slice's windows by axis (attributes before opset 10, constant inputs after). nullopt
// when a parameter is not constant, malformed, a step is 0, an axis repeats, or an axis is
// negative while the rank is unknown (rank < 0).
std::optional<std::map<int64_t, AxisWindow>> slice_windows(const ir::Node& slice, int64_t opset, int64_t rank);

// A step-1 window on an axis of size dim (nullopt: unknown) as non-negative [start, end):
// with a known dim, negatives are resolved and both are clamped to [0, dim]; with an unknown
// dim, both must already be non-negative (the runtime clamps them to the dim).
std::optional<std::pair<int64_t, int64_t>> resolve_window(const AxisWindow& w, std::optional<int64_t> dim);

// [start, end) of a Slice that takes a step-1 window of the last axis (of size dim) of a value of
// rank `rank` and slices no other axis; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> last_axis_window(const ir::Node& slice, int64_t opset, int64_t rank,
                                                            int64_t dim);

// The dim of axis a of v, when known.
std::optional<int64_t> known_dim(const ir::Value* v, int64_t a);

// end reaches the end of any axis (INT64_MAX, or INT32_MAX that exporters use with int32 indices).
inline bool is_open_end(int64_t end) { return end >= std::numeric_limits<int32_t>::max(); }

}  // namespace onnxtrim::passes
