// Shared by the coreml target's passes: a Reshape target written as a constant.
#pragma once

#include <optional>
#include <vector>

#include "ops/infer.h"

namespace onnxtrim::passes {

// Known dims as a constant Reshape target: numbers as they are, at most one symbolic dim as -1.
// nullopt when two dims are symbolic, or a dim is 0 (a 0 in a target means "copy that dim").
inline std::optional<std::vector<int64_t>> reshape_constant_target(const ops::SymShape& s) {
  std::vector<int64_t> out;
  bool minus = false;
  for (const symbolic::Expr& e : s) {
    if (auto v = e.constant_value()) {
      if (*v == 0) return std::nullopt;
      out.push_back(*v);
    } else {
      if (minus) return std::nullopt;
      minus = true;
      out.push_back(-1);
    }
  }
  return out;
}

}  // namespace onnxtrim::passes
