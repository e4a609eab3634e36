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
// The prelude of the normalization kernels: inputs 0 .. required - 1 present (else the error
// `missing`), and X, input 0, of a float type and of rank min_rank at least (else an error
// naming the node's op).
Status check_float_input(const KernelContext& ctx, size_t required, const char* missing, int64_t min_rank);
// LayerNormalization's and RMSNormalization's view of X: normalized over the axes [axis, rank),
// from the attributes axis, epsilon and stash_type (the type the statistics are computed in).
struct TrailingAxes {
  int64_t axis = 0;
  double eps = 0;
  DataType stash = DataType::kFloat;
  Dims norm_dims;     // X.shape[axis:]
  int64_t outer = 1;  // the product of X.shape[:axis]
  int64_t inner = 1;  // the product of norm_dims
};
// Reads the attributes for x; errors (axis out of range, stash_type not a float type) name the op.
Status trailing_axes(const KernelContext& ctx, const Tensor& x, TrailingAxes* t);
// The values of parameter p broadcast to dims, as double; false when p does not broadcast to
// exactly dims.
bool broadcast_param(const Tensor& p, const Dims& dims, std::vector<double>* out);
// The product of x's dims from axis 2 on: the size of one channel of an [N, C, spatial...] input.
int64_t spatial_size(const Tensor& x);

}  // namespace onnxtrim::ops::norm
