// Element conversions shared by Cast and CastLike: every pair of the standard numeric types,
// bool, strings, the float8/float4 variants and the 2/4-bit integers.
#pragma once

#include "ops/kernel_util.h"

namespace onnxtrim::ops::cast {

// How a value between two powers of two becomes a float8e8m0 (Cast's round_mode).
enum class E8M0Round { kUp, kDown, kNearest };
bool parse_e8m0_round(const std::string& s, E8M0Round* r);

// Converts x to `to`; false (and *why set) when a type is not supported.
bool convert(const Tensor& x, DataType to, bool saturate, Tensor* out, std::string* why,
             E8M0Round round = E8M0Round::kUp);
// True when every value of `from` is exactly representable in `to` (a lossless widening).
bool holds_exactly(DataType from, DataType to);

}  // namespace onnxtrim::ops::cast
