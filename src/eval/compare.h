// Comparing runtime values: dtype and shape exactly, numbers within |a-b| <= atol + rtol*|b|
// (NaN equals NaN, infinities must match), integers, bools and strings exactly.
//
// With `scaled` (what the check of a simplification uses), an element's tolerance is relative
// to the larger of its own magnitude and the RMS of the whole expected output:
//   |a - b| <= atol + rtol * max(|b|, rms(b))
// so that an element near zero in an output of large values is judged at the output's scale:
// float rounding of fused or folded constants, amplified through a deep network, moves such
// elements by far more than their own magnitude allows, while a real change (a perturbed
// weight, a wrong fold, a swapped axis) moves the output at its own scale. For float16 and
// bfloat16 outputs, rtol is at least 4 units of their precision (2^-8 and 2^-5).
#pragma once

#include <string>

#include "ir/runtime_value.h"

namespace onnxtrim::eval {

struct Diff {
  bool ok = true;
  double max_abs = 0;  // largest |actual - expected|
  double max_rel = 0;  // largest |actual - expected| / |expected| (where expected != 0);
                       // scaled: / max(|expected|, rms)
  double scale = 0;    // scaled: the RMS of the expected output
  double rel_l2 = 0;   // ||actual - expected||_2 / ||expected||_2 of float outputs (0 when both are 0)
  std::string why;     // first mismatch, for people
};

Diff compare_values(const ir::RuntimeValue& actual, const ir::RuntimeValue& expected, double rtol, double atol,
                    bool scaled = false, double l2_tol = 0);
Diff compare_tensors(const ir::Tensor& actual, const ir::Tensor& expected, double rtol, double atol,
                     bool scaled = false);

// The check of a precision conversion (--dtype): a float output passes when its relative L2
// error ||actual - expected|| / ||expected|| is at most l2_tol; the two may be of different
// float types (a float16 result against the float32 original). NaN and infinities must sit
// where the expected output has them. Other types must be equal.
Diff compare_tensors_l2(const ir::Tensor& actual, const ir::Tensor& expected, double l2_tol);

}  // namespace onnxtrim::eval
