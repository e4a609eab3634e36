// Shared by fuse_conv_add and fuse_conv_mul (and fuse_conv_bn: from_doubles): recognising a per-output-channel constant
// after a Conv and reading it as one value per channel.
#pragma once

#include <optional>
#include <vector>

#include "ops/fold.h"
#include "passes/rule.h"

namespace onnxtrim::passes {

// The Conv or ConvTranspose that produces `y` when it may absorb an elementwise op on y: y has
// this one consumer, is not a graph output, the weights are a float constant of rank >= 3 (for
// ConvTranspose, with C_in a multiple of group), and a bias, if any, a constant of one value per
// output channel.
const ir::Node* absorbing_conv(const ir::Value* y);
// The output channels of such a node: W's dim 0 for Conv ([M, C/group, k...]), group * W's dim 1
// for ConvTranspose ([C_in, M/group, k...]).
int64_t conv_out_channels(const ir::Node& conv, const ir::Tensor& w);
// For each element of W (row-major), the output channel it contributes to: for Conv its index
// along axis 0; for ConvTranspose, in group g = c_in / (C_in / group), g * (M / group) + its
// index along axis 1.
std::vector<int64_t> weight_out_channels(const ir::Node& conv, const ir::Tensor& w);
// One double per output channel (M of them) when the constant c, broadcast against a Conv
// output of rank `rank`, varies at most along the channel axis (axis 1) and does not grow it.
std::optional<std::vector<double>> per_channel(const ir::Value* c, int64_t rank, int64_t channels);
// An elementwise op (Add, Mul) one of whose inputs comes from such a Conv and the other is such a
// per-channel constant, the op's output able to take the Conv output's place: the Conv (the first
// side that fits) and the constant, one value per output channel.
struct ChannelOperand {
  ir::Node* conv = nullptr;
  std::vector<double> c;
};
std::optional<ChannelOperand> channel_operand(const ir::Node& op);
// channel_operand as a rule's match, with the reason both rules give when it does not fit.
Match<ChannelOperand> match_channel_operand(const ir::Node& op);
// The end of both rewrites: the Conv gets bias b of its weights' type (left absent when it had
// none and b is all zero), and its output takes the place of op's.
void absorb_into_conv(ir::Node& op, ir::Node& conv, const ir::Tensor& w, const std::vector<double>& b, ir::Graph& g,
                      ir::Rewriter& rw);
// The Conv's bias, one double per output channel; zeros when it has none.
std::vector<double> conv_bias(const ir::Node& conv, const ir::Tensor& w);
std::vector<double> to_doubles(const ir::Tensor& t);
ir::Tensor from_doubles(ir::DataType dt, const std::vector<int64_t>& dims, const std::vector<double>& v);

// The rule both rewrites are: match_channel_operand on the root, then fold(op, its Conv, the
// Conv's constant weights, the per-channel constant), which ends in absorb_into_conv.
class ChannelOperandRule : public Rule<ChannelOperand> {
 protected:
  Match<ChannelOperand> match(const ir::Node& n, RuleContext&) override { return match_channel_operand(n); }
  void apply(ir::Node& n, ChannelOperand& f, RuleContext& ctx, ir::Rewriter& rw) override {
    fold(n, *f.conv, *ops::FoldContext::constant(f.conv->input(1)), f.c, ctx.graph(), rw);
  }
  virtual void fold(ir::Node& op, ir::Node& conv, const ir::Tensor& w, const std::vector<double>& c, ir::Graph& g,
                    ir::Rewriter& rw) = 0;
};

}  // namespace onnxtrim::passes
