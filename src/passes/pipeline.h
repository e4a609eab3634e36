// The order of the pipeline: one list (pipeline.cc) naming every built-in pass in the order a
// round runs them, each entry with the reason for its place. The registry sorts by it (the run,
// the report, --list-passes and docs/passes.md follow), so a pass's registration says what it
// is and this list alone says where it runs.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace onnxtrim::passes {

// The built-in passes, first to last (those off by default included, where they would run).
const std::vector<std::string_view>& pipeline_order();

// The place of `name` in pipeline_order(); a pass the list does not name (a test's) gets
// pipeline_order().size(): it runs after the listed ones.
size_t pipeline_position(std::string_view name);

}  // namespace onnxtrim::passes
