// Helpers shared by the normalization family.
#pragma once

#include <vector>

#include "ops/kernel_util.h"

namespace onnxtrim::ops::norm {

// All elements of a numeric tensor as double.
std::vector<double> to_doubles(const Tensor& t);
// Writes double values into a new tensor of dtype (float types), rounding to the storage type.
Tensor from_doubles(DataType dtype, const Dims& dims, const std::vector<double>& v);
// The mean of the n values at p and 1 / sqrt(variance + eps), the population variance, summed in
// order in double (mean and variance 0 when n is 0): GroupNormalization's groups,
// LayerNormalization's rows.
void mean_and_inv_std(const double* p, int64_t n, double eps, double* mean, double* inv_std);
// The element values of a floating-point tensor in the type they compute in (float for
// float/float16/bfloat16, double for double) — returned as double for uniform handling.
bool is_float_type(DataType t);

}  // namespace onnxtrim::ops::norm
