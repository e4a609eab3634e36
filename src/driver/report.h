// What a run did to a model: statistics before and after, time per stage, per-pass figures and
// the check. The structs are public (include/onnxtrim/onnxtrim.hpp); this adds what needs the IR.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim {

ModelStats compute_stats(const ir::Model& m);
std::string human_bytes(int64_t n);
// --graph-diff: the main graph of `before` (the original the run kept for its check) against `after`.
GraphDiff diff_graphs(const ir::Model& before, const ir::Model& after);
// --node-reduction-plot: nodes and initializer bytes per round as a self-contained SVG line chart.
std::string node_reduction_svg(const std::vector<RoundStats>& rounds);
// --report FILE.html: the whole report as one self-contained HTML page (src/driver/report_html.cc).
std::string report_html(const Report& r);

}  // namespace onnxtrim
