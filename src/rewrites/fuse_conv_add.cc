// Add(Conv(x, W, B), c) -> Conv(x, W, B + c)      (c constant per output channel)
// Add(ConvTranspose(x, W, B), c) -> ConvTranspose(x, W, B + c)   (likewise; its M output
// channels are group * W's dim 1)
// Refuses: a constant that varies along another axis than the channels, or would broadcast the
// output to a larger shape; a Conv output with other consumers or that is a graph output;
// weights that are not float constants.
#include "passes/rule.h"
#include "rewrites/conv_channel.h"

namespace onnxtrim::passes {
namespace {

class FuseConvAdd final : public ChannelOperandRule {
 public:
  std::vector<std::string> roots() const override { return {"Add"}; }

 protected:
  void fold(ir::Node& op, ir::Node& conv, const ir::Tensor& w, const std::vector<double>& c, ir::Graph& g,
            ir::Rewriter& rw) override {
    std::vector<double> b = conv_bias(conv, w);
    for (size_t i = 0; i < b.size(); ++i) b[i] += c[i];
    absorb_into_conv(op, conv, w, b, g, rw);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseConvAdd, "fuse_conv_add",
                       "a per-output-channel constant Add after Conv or ConvTranspose folds into its bias; refuses "
                       "other broadcasts and shared intermediates");

}  // namespace onnxtrim::passes
