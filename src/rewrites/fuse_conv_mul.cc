// Mul(Conv(x, W, B), c) -> Conv(x, W * c[m], B * c)  (c constant per output channel m)
// Mul(ConvTranspose(x, W, B), c) -> ConvTranspose(x, W', B * c): W is [C_in, M/group, k...], so
// W'[i, j, ...] = W[i, j, ...] * c[g * (M/group) + j], g = i / (C_in/group) the group of input
// channel i (output channel m of group g reads only that group's input channels, through j).
// Refuses: a constant that varies along another axis than the channels, or would broadcast the
// output to a larger shape; a Conv output with other consumers or that is a graph output;
// weights that are not float constants.
#include "passes/pass.h"
#include "rewrites/conv_channel.h"

namespace onnxtrim::passes {
namespace {

class FuseConvMul final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || n->op_type != "Mul" || !n->is_default_domain()) continue;
      for (size_t side = 0; side < 2; ++side) {
        const ir::Node* conv = absorbing_conv(n->input(side));
        if (!conv) continue;
        const ir::Tensor& w = *ops::FoldContext::constant(conv->input(1));
        int64_t m = conv_out_channels(*conv, w);
        auto c = per_channel(n->input(1 - side), w.rank(), m);
        if (!c || !ir::Rewriter::can_replace(n->output(0), conv->output(0))) continue;
        apply(*n, *const_cast<ir::Node*>(conv), w, *c, g, rw);
        break;
      }
    }
  }

 private:
  static void apply(ir::Node& op, ir::Node& conv, const ir::Tensor& w, const std::vector<double>& c, ir::Graph& g,
                    ir::Rewriter& rw) {
    int64_t m = conv_out_channels(conv, w);
    std::vector<double> b(static_cast<size_t>(m), 0.0);
    if (conv.num_inputs() > 2 && conv.input(2)) b = to_doubles(*ops::FoldContext::constant(conv.input(2)));
    std::vector<double> wv = to_doubles(w);
    std::vector<int64_t> channel = weight_out_channels(conv, w);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] *= c[static_cast<size_t>(channel[i])];
    for (size_t i = 0; i < b.size(); ++i) b[i] *= c[i];
    rw.set_input(&conv, 1, rw.add_initializer(g, from_doubles(w.dtype(), w.dims(), wv), conv.input(1)->name() + "_scaled"));
    if ((conv.num_inputs() > 2 && conv.input(2)) || b != std::vector<double>(b.size(), 0.0))
      rw.set_input(&conv, 2, rw.add_initializer(g, from_doubles(w.dtype(), {m}, b), conv.output(0)->name() + "_bias"));
    ir::Value* y = conv.output(0);
    y->type = op.output(0)->type;
    if (rw.replace_all_uses_with(op.output(0), y)) rw.erase_node(&op);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(FuseConvMul, "fuse_conv_mul", 511,
                       "a per-output-channel constant Mul after Conv or ConvTranspose folds into its weights (per group for ConvTranspose) and bias; refuses other broadcasts and shared intermediates");

}  // namespace onnxtrim::passes
