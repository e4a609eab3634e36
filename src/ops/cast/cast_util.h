// Element conversions shared by Cast and CastLike: every pair of the standard numeric types,
// bool and strings. (float8 and 4-bit types are reported unsupported by the callers.)
#pragma once

#include "ops/kernel_util.h"

namespace onnxtrim::ops::cast {

// Converts x to `to`; false (and *why set) when a type is not supported.
bool convert(const Tensor& x, DataType to, bool saturate, Tensor* out, std::string* why);
// True when every value of `from` is exactly representable in `to` (a lossless widening).
bool holds_exactly(DataType from, DataType to);

}  // namespace onnxtrim::ops::cast
