// Helpers shared by the normalization family.
#pragma once

#include <vector>

#include "ops/kernel_util.h"

namespace onnxtrim::ops::norm {

// All elements of a numeric tensor as double.
std::vector<double> to_doubles(const Tensor& t);
// Writes double values into a new tensor of dtype (float types), rounding to the storage type.
Tensor from_doubles(DataType dtype, const Dims& dims, const std::vector<double>& v);
// The element values of a floating-point tensor in the type they compute in (float for
// float/float16/bfloat16, double for double) — returned as double for uniform handling.
bool is_float_type(DataType t);

}  // namespace onnxtrim::ops::norm
