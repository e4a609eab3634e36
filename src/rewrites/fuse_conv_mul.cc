// Mul(Conv(x, W, B), c) -> Conv(x, W * c[m], B * c)  (c constant per output channel m)
// Mul(ConvTranspose(x, W, B), c) -> ConvTranspose(x, W', B * c): W is [C_in, M/group, k...], so
// W'[i, j, ...] = W[i, j, ...] * c[g * (M/group) + j], g = i / (C_in/group) the group of input
// channel i (output channel m of group g reads only that group's input channels, through j).
// Refuses: a constant that varies along another axis than the channels, or would broadcast the
// output to a larger shape; a Conv output with other consumers or that is a graph output;
// weights that are not float constants.
#include "passes/rule.h"
#include "rewrites/conv_channel.h"

namespace onnxtrim::passes {
namespace {

class FuseConvMul final : public ChannelOperandRule {
 public:
  std::vector<std::string> roots() const override { return {"Mul"}; }

 protected:
  void fold(ir::Node& op, ir::Node& conv, const ir::Tensor& w, const std::vector<double>& c, ir::Graph& g,
            ir::Rewriter& rw) override {
    std::vector<double> b = conv_bias(conv, w);
    std::vector<double> wv = to_doubles(w);
    std::vector<int64_t> channel = weight_out_channels(conv, w);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] *= c[static_cast<size_t>(channel[i])];
    for (size_t i = 0; i < b.size(); ++i) b[i] *= c[i];
    rw.set_input(&conv, 1,
                 rw.add_initializer(g, from_doubles(w.dtype(), w.dims(), wv), conv.input(1)->name() + "_scaled"));
    absorb_into_conv(op, conv, w, b, g, rw);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseConvMul, "fuse_conv_mul",
                       "a per-output-channel constant Mul after Conv or ConvTranspose folds into its weights (per "
                       "group for ConvTranspose) and bias; refuses other broadcasts and shared intermediates");

}  // namespace onnxtrim::passes
