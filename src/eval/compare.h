// Comparing runtime values: dtype and shape exactly, numbers within |a-b| <= atol + rtol*|b|
// (NaN equals NaN, infinities must match), integers, bools and strings exactly.
#pragma once

#include <string>

#include "ir/runtime_value.h"

namespace onnxtrim::eval {

struct Diff {
  bool ok = true;
  double max_abs = 0;  // largest |actual - expected|
  double max_rel = 0;  // largest |actual - expected| / |expected| (where expected != 0)
  std::string why;     // first mismatch, for people
};

Diff compare_values(const ir::RuntimeValue& actual, const ir::RuntimeValue& expected, double rtol, double atol);
Diff compare_tensors(const ir::Tensor& actual, const ir::Tensor& expected, double rtol, double atol);

}  // namespace onnxtrim::eval
