// Shared by Resize and Upsample: per-axis sampling plans (which input positions, with which
// weights, make each output position) and their separable application; with GridSample: the
// computation in double.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::image {

struct ResizeParams {
  std::string mode = "nearest";      // nearest | linear | cubic
  std::string coord = "half_pixel";  // coordinate_transformation_mode
  std::string nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0.0;
};

// One output position along an axis: input taps and weights, or `outside` (tf_crop_and_resize
// sampling past the input: the output element is the extrapolation value).
struct Taps {
  std::vector<int64_t> index;
  std::vector<double> weight;
  bool outside = false;
};

// The plan of one axis of input length `in`, output length `out`, scale `scale` (output/input
// as the op defines it), roi [start, end] (tf_crop_and_resize only).
std::vector<Taps> plan_axis(const ResizeParams& p, int64_t in, int64_t out, double scale, double roi_start,
                            double roi_end);

// Applies the per-axis plans (nullopt: the axis keeps its size) to x. Nearest sampling copies
// elements exactly; linear/cubic compute in double.
Tensor apply_plans(const Tensor& x, const std::vector<std::optional<std::vector<Taps>>>& plans, const Dims& out_dims,
                   double extrapolation);

// The interpolating samplers (Resize and Upsample's linear and cubic modes, GridSample) compute
// in double: a numeric tensor's elements as doubles, and one double per element stored into y,
// rounded to nearest for integer types (false for a type that is not numeric).
std::vector<double> elements_as_doubles(const Tensor& x);
bool store_doubles(Tensor& y, const std::vector<double>& v);

}  // namespace onnxtrim::ops::image
