// Shared by QuantizeLinear and DequantizeLinear: which scale / zero-point element applies to
// each element of x (per tensor, per axis, or per block along the axis).
#pragma once

#include "ops/kernel_util.h"

namespace onnxtrim::ops::quant {

// For each element of x (row-major), the index into the scale tensor; empty + error message
// when the scale's shape fits none of the three forms.
std::vector<int64_t> scale_index(const Dims& x, const Dims& scale, int64_t axis_attr, int64_t block_size,
                                 std::string* why);
// Reads every element of any tensor (including small types) as double.
std::vector<double> as_doubles(const Tensor& t);

}  // namespace onnxtrim::ops::quant
