#include "rewrites/conv_channel.h"

#include "ir/rewriter.h"

#include "ops/kernel_util.h"

namespace onnxtrim::passes {

const ir::Node* absorbing_conv(const ir::Value* y) {
  if (!y || !y->producer() || y->uses().size() != 1 || y->is_graph_output()) return nullptr;
  const ir::Node* conv = y->producer();
  if ((conv->op_type != "Conv" && conv->op_type != "ConvTranspose") || !conv->is_default_domain() ||
      conv->num_outputs() != 1)
    return nullptr;
  const ir::Tensor* w = ops::FoldContext::constant(conv->input(1));
  if (!w || (w->dtype() != ir::DataType::kFloat && w->dtype() != ir::DataType::kDouble) || w->rank() < 3)
    return nullptr;
  if (conv->op_type == "ConvTranspose") {
    int64_t group = conv->attr_int("group", 1);
    if (group < 1 || w->dims()[0] % group != 0) return nullptr;
  }
  if (conv->num_inputs() > 2 && conv->input(2)) {
    const ir::Tensor* b = ops::FoldContext::constant(conv->input(2));
    if (!b || b->dtype() != w->dtype() || b->rank() != 1 || b->numel() != conv_out_channels(*conv, *w)) return nullptr;
  }
  return conv;
}

int64_t conv_out_channels(const ir::Node& conv, const ir::Tensor& w) {
  if (conv.op_type == "ConvTranspose") return conv.attr_int("group", 1) * w.dims()[1];
  return w.dims()[0];
}

std::vector<int64_t> weight_out_channels(const ir::Node& conv, const ir::Tensor& w) {
  std::vector<int64_t> out(static_cast<size_t>(w.numel()));
  if (out.empty()) return out;
  const int64_t d0 = w.dims()[0], d1 = w.dims()[1];
  const int64_t k = w.numel() / (d0 * d1);  // the kernel's elements
  const bool transposed = conv.op_type == "ConvTranspose";
  const int64_t in_per_group = transposed ? d0 / conv.attr_int("group", 1) : 1;
  for (int64_t i = 0; i < w.numel(); ++i) {
    const int64_t a0 = i / (d1 * k), a1 = (i / k) % d1;
    out[static_cast<size_t>(i)] = transposed ? (a0 / in_per_group) * d1 + a1 : a0;
  }
  return out;
}

std::vector<double> conv_bias(const ir::Node& conv, const ir::Tensor& w) {
  if (conv.num_inputs() > 2 && conv.input(2)) return to_doubles(*ops::FoldContext::constant(conv.input(2)));
  return std::vector<double>(static_cast<size_t>(conv_out_channels(conv, w)), 0.0);
}

std::vector<double> to_doubles(const ir::Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = ops::element_as_double(t, i);
  return v;
}

ir::Tensor from_doubles(ir::DataType dt, const std::vector<int64_t>& dims, const std::vector<double>& v) {
  ir::Tensor t(dt, dims);
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == ir::DataType::kDouble) t.mutable_data<double>()[i] = v[i];
    else t.mutable_data<float>()[i] = static_cast<float>(v[i]);
  }
  return t;
}

std::optional<std::vector<double>> per_channel(const ir::Value* c, int64_t rank, int64_t channels) {
  const ir::Tensor* t = ops::FoldContext::constant(c);
  if (!t || t->rank() > rank || t->bytes() == nullptr) return std::nullopt;
  if (t->dtype() != ir::DataType::kFloat && t->dtype() != ir::DataType::kDouble) return std::nullopt;
  int64_t off = rank - t->rank();
  bool along_channel = false;
  for (int64_t k = 0; k < t->rank(); ++k) {
    int64_t d = t->dims()[static_cast<size_t>(k)];
    if (k + off == 1) {
      if (d != 1 && d != channels) return std::nullopt;
      along_channel = d == channels && channels != 1;
    } else if (d != 1) {
      return std::nullopt;
    }
  }
  std::vector<double> v = to_doubles(*t);
  if (!along_channel) return std::vector<double>(static_cast<size_t>(channels), v.empty() ? 0.0 : v[0]);
  return v;
}

std::optional<ChannelOperand> channel_operand(const ir::Node& op) {
  for (size_t side = 0; side < 2; ++side) {
    const ir::Node* conv = absorbing_conv(op.input(side));
    if (!conv) continue;
    const ir::Tensor& w = *ops::FoldContext::constant(conv->input(1));
    auto c = per_channel(op.input(1 - side), w.rank(), conv_out_channels(*conv, w));
    if (!c || !ir::Rewriter::can_replace(op.output(0), conv->output(0))) continue;
    return ChannelOperand{const_cast<ir::Node*>(conv), std::move(*c)};
  }
  return std::nullopt;
}

Match<ChannelOperand> match_channel_operand(const ir::Node& op) {
  auto fit = channel_operand(op);
  if (!fit)
    return refuse("no input is a Conv (read only here, constant float weights) and the other a per-channel constant");
  return std::move(*fit);
}

void absorb_into_conv(ir::Node& op, ir::Node& conv, const ir::Tensor& w, const std::vector<double>& b, ir::Graph& g,
                      ir::Rewriter& rw) {
  const int64_t m = static_cast<int64_t>(b.size());
  if ((conv.num_inputs() > 2 && conv.input(2)) || b != std::vector<double>(b.size(), 0.0))
    rw.set_input(&conv, 2, rw.add_initializer(g, from_doubles(w.dtype(), {m}, b), conv.output(0)->name() + "_bias"));
  ir::Value* y = conv.output(0);
  y->type = op.output(0)->type;
  if (rw.replace_all_uses_with(op.output(0), y)) rw.erase_node(&op);
}

}  // namespace onnxtrim::passes
