// Shape-rule helpers shared by the nn family: convolution/pooling output dims on symbolic
// input dims, and the batched-matmul output shape.
#pragma once

#include <optional>
#include <vector>

#include "ops/infer.h"

namespace onnxtrim::ops::nn {

// int8 and uint8 (is_8bit in nn_util.h): the element types of the integer and quantized
// convolutions' and products' 8-bit operands.
inline constexpr uint64_t k8BitTypes = type_bits({ir::DataType::kInt8, ir::DataType::kUint8});

// Spatial output dims of a Conv/Pool over symbolic spatial input dims `in` with the node's
// strides/dilations/pads/auto_pad attributes. nullopt when the attributes are malformed.
std::optional<SymShape> conv_output_dims(const ir::Node& node, const SymShape& in, const std::vector<int64_t>& kernel,
                                         bool ceil_mode);
// X: [N, C, spatial...] -> [N, channels, out...]; channels nullopt keeps C (pools).
Status infer_conv_like(InferContext& ctx, std::optional<Expr> channels, const std::vector<int64_t>& kernel,
                       bool ceil_mode);
// The output of a convolution whose weight (input `w_input`) is [M, C / group, k...]: element
// type `elem`, shape [N, M, out...], the kernel from kernel_shape or else from the weight's known
// dims.
Status infer_conv_by_weight(InferContext& ctx, size_t w_input, ir::DataType elem);
// numpy matmul of symbolic shapes (1-D operands promoted and removed); nullopt if unknown.
std::optional<SymShape> matmul_shape(const SymShape& a, const SymShape& b, bool* error);

}  // namespace onnxtrim::ops::nn
