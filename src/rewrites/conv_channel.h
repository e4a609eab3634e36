// Shared by fuse_conv_add and fuse_conv_mul: recognising a per-output-channel constant after
// a Conv and reading it as one value per channel.
#pragma once

#include <optional>
#include <vector>

#include "ops/fold.h"

namespace onnxtrim::passes {

// The Conv that produces `y` when it may absorb an elementwise op on y: y has this one
// consumer, is not a graph output, and the weights are a float constant of rank >= 3.
const ir::Node* absorbing_conv(const ir::Value* y);
// One double per output channel (M of them) when the constant c, broadcast against a Conv
// output of rank `rank`, varies at most along the channel axis (axis 1) and does not grow it.
std::optional<std::vector<double>> per_channel(const ir::Value* c, int64_t rank, int64_t channels);
std::vector<double> to_doubles(const ir::Tensor& t);
ir::Tensor from_doubles(ir::DataType dt, const std::vector<int64_t>& dims, const std::vector<double>& v);

}  // namespace onnxtrim::passes
