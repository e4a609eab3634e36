// Shared by QuantizeLinear and DequantizeLinear: which scale / zero-point element applies to
// each element of x (per tensor, per axis, or per block along the axis).
#pragma once

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::quant {

// For each element of x (row-major), the index into the scale tensor; empty + error message
// when the scale's shape fits none of the three forms.
std::vector<int64_t> scale_index(const Dims& x, const Dims& scale, int64_t axis_attr, int64_t block_size,
                                 std::string* why);
// Reads every element of any tensor (including small types) as double.
std::vector<double> as_doubles(const Tensor& t);

// The operands of QuantizeLinear and DequantizeLinear as double: x, the scale and the zero point
// (zeros, one per scale element, where it is absent), and for each element of x the index of
// the scale and zero point that apply to it (the attributes axis and block_size).
struct Operands {
  std::vector<int64_t> index;
  std::vector<double> x, scale, zero;
};
// Errors (a scale whose shape fits no form) name the node's op.
Status read_operands(const KernelContext& ctx, Operands* q);

// The element types of a quantized tensor (QuantizeLinear's output, DequantizeLinear's input).
inline constexpr uint64_t kQuantizedTypes =
    kFloat8Types | type_bits({ir::DataType::kFloat4E2M1, ir::DataType::kInt16, ir::DataType::kInt2, ir::DataType::kInt4,
                              ir::DataType::kInt8, ir::DataType::kUint16, ir::DataType::kUint2, ir::DataType::kUint4,
                              ir::DataType::kUint8});

}  // namespace onnxtrim::ops::quant
