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

}  // namespace onnxtrim
