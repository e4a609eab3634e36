// BatchNormalization(Conv(x, W, B), scale, bias, mean, var)  ->  Conv(x, W', B')
//   s  = scale / sqrt(var + epsilon)                 (per output channel m)
//   W' = W * s[m]           (Conv: W[m, ...];  ConvTranspose, group 1: W[:, m, ...])
//   B' = (B - mean) * s + bias                       (B = 0 when the Conv has none)
// Computed in double, stored in the weights' type: exact up to rounding.
// Refuses: BatchNormalization in training mode or with more than one output used, a Conv
// output that has other consumers or is a graph output, weights or statistics that are not
// constants, types other than float/double, ConvTranspose with groups.
#include <cmath>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrites/conv_channel.h"

namespace onnxtrim::passes {
namespace {

template <typename T>
std::vector<double> as_doubles(const ir::Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<double>(t.data<T>()[i]);
  return v;
}

std::vector<double> doubles(const ir::Tensor& t) {
  return t.dtype() == ir::DataType::kDouble ? as_doubles<double>(t) : as_doubles<float>(t);
}

struct ConvBnFit {};

class FuseConvBn final : public Rule<ConvBnFit> {
 public:
  std::vector<std::string> roots() const override { return {"BatchNormalization"}; }

 protected:
  Match<ConvBnFit> match(const ir::Node& bn, RuleContext& ctx) override {
    if (ctx.opset() < 7 && bn.attr_int("is_test", 0) == 0) return refuse("training mode (is_test 0)");
    if (bn.attr_int("training_mode", 0) != 0) return refuse("training mode");
    for (size_t i = 1; i < bn.num_outputs(); ++i)
      if (bn.output(i) && (bn.output(i)->has_uses() || bn.output(i)->is_graph_output()))
        return refuse("its statistics are used");
    if (bn.attr_int("spatial", 1) != 1) return refuse("spatial 0");
    const ir::Value* y = bn.input(0);
    if (!read_only_by(y, &bn) || !y->producer()) return refuse("its input is read elsewhere or is a graph output");
    const ir::Node& conv = *y->producer();
    if (!is_op(&conv, "Conv") && !is_op(&conv, "ConvTranspose"))
      return refuse("its input is not a Conv or ConvTranspose");
    if (conv.op_type == "ConvTranspose" && conv.attr_int("group", 1) != 1) return refuse("a grouped ConvTranspose");
    const ir::Tensor* w = ops::FoldContext::constant(conv.input(1));
    if (!w || (w->dtype() != ir::DataType::kFloat && w->dtype() != ir::DataType::kDouble) || w->rank() < 2)
      return refuse("the weights are not a constant float or double tensor");
    if (conv.input(2) && !ops::FoldContext::constant(conv.input(2))) return refuse("the bias is not constant");
    int64_t channels = conv.op_type == "Conv" ? w->dims()[0] : w->dims()[1];
    for (size_t i = 1; i <= 4; ++i) {
      const ir::Tensor* t = ops::FoldContext::constant(bn.input(i));
      if (!t || t->dtype() != w->dtype() || t->numel() != channels)
        return refuse("a statistic is not a constant of one value per channel");
    }
    const ir::Tensor* b = conv.input(2) ? ops::FoldContext::constant(conv.input(2)) : nullptr;
    if (b && (b->dtype() != w->dtype() || b->numel() != channels))
      return refuse("the bias is not one value per channel");
    // Checked before the weights change: a refused rename must leave the Conv untouched.
    if (!ir::Rewriter::can_replace(bn.output(0), y)) return refuse("the output cannot keep its name");
    return ConvBnFit{};
  }

  void apply(ir::Node& bn, ConvBnFit&, RuleContext& ctx, ir::Rewriter& rw) override { fold(bn, ctx.graph(), rw); }

 private:
  static void fold(ir::Node& bn, ir::Graph& g, ir::Rewriter& rw) {
    ir::Node& conv = *bn.input(0)->producer();
    const ir::Tensor& w = *ops::FoldContext::constant(conv.input(1));
    bool transpose = conv.op_type == "ConvTranspose";
    int64_t channels = transpose ? w.dims()[1] : w.dims()[0];
    std::vector<double> scale = doubles(*ops::FoldContext::constant(bn.input(1)));
    std::vector<double> bias = doubles(*ops::FoldContext::constant(bn.input(2)));
    std::vector<double> mean = doubles(*ops::FoldContext::constant(bn.input(3)));
    std::vector<double> var = doubles(*ops::FoldContext::constant(bn.input(4)));
    double eps = bn.attr_float("epsilon", 1e-5f);
    std::vector<double> b(static_cast<size_t>(channels), 0.0);
    if (conv.input(2)) b = doubles(*ops::FoldContext::constant(conv.input(2)));

    std::vector<double> s(static_cast<size_t>(channels));
    for (size_t m = 0; m < s.size(); ++m) s[m] = scale[m] / std::sqrt(var[m] + eps);
    std::vector<double> wv = doubles(w);
    int64_t inner = w.numel() / (w.dims()[0] * w.dims()[1]);
    for (int64_t i = 0; i < w.dims()[0]; ++i)
      for (int64_t j = 0; j < w.dims()[1]; ++j) {
        double f = s[static_cast<size_t>(transpose ? j : i)];
        for (int64_t k = 0; k < inner; ++k) wv[static_cast<size_t>((i * w.dims()[1] + j) * inner + k)] *= f;
      }
    std::vector<double> nb(s.size());
    for (size_t m = 0; m < s.size(); ++m) nb[m] = (b[m] - mean[m]) * s[m] + bias[m];

    ir::Value* new_w = rw.add_initializer(g, from_doubles(w.dtype(), w.dims(), wv), conv.input(1)->name() + "_bn");
    ir::Value* new_b = rw.add_initializer(g, from_doubles(w.dtype(), {channels}, nb),
                                          (conv.input(2) ? conv.input(2)->name() : conv.input(1)->name()) + "_bn_bias");
    rw.set_input(&conv, 1, new_w);
    rw.set_input(&conv, 2, new_b);
    ir::Value* y = conv.output(0);
    ir::Value* out = bn.output(0);
    // The Conv output now carries the BN's result (and its name if it is a graph output).
    y->type = out->type;
    if (!rw.replace_all_uses_with(out, y)) return;
    rw.erase_node(&bn);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseConvBn, "fuse_conv_bn",
    "Conv/ConvTranspose + inference BatchNormalization -> Conv with scaled weights and bias; refuses shared "
    "intermediates, graph outputs, non-constant weights, training mode, non-float types");

}  // namespace onnxtrim::passes
