#include "ops/nn/nn_infer.h"

namespace onnxtrim::ops::nn {

std::optional<SymShape> conv_output_dims(const ir::Node& node, const SymShape& in, const std::vector<int64_t>& kernel,
                                         bool ceil_mode) {
  size_t nsp = in.size();
  if (kernel.size() != nsp) return std::nullopt;
  auto strides = node.attr_ints("strides", std::vector<int64_t>(nsp, 1));
  auto dil = node.attr_ints("dilations", std::vector<int64_t>(nsp, 1));
  if (strides.empty()) strides.assign(nsp, 1);
  if (dil.empty()) dil.assign(nsp, 1);
  if (strides.size() != nsp || dil.size() != nsp) return std::nullopt;
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  SymShape out;
  for (size_t i = 0; i < nsp; ++i) {
    if (strides[i] <= 0 || dil[i] <= 0) return std::nullopt;
    int64_t dk = (kernel[i] - 1) * dil[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back(Expr::ceildiv(in[i], Expr::constant(strides[i])));
      continue;
    }
    int64_t pb = 0, pe = 0;
    if (auto_pad == "NOTSET" || auto_pad.empty()) {
      auto pads = node.attr_ints("pads", std::vector<int64_t>(2 * nsp, 0));
      if (pads.empty()) pads.assign(2 * nsp, 0);
      if (pads.size() != 2 * nsp) return std::nullopt;
      pb = pads[i];
      pe = pads[i + nsp];
    } else if (auto_pad != "VALID") {
      return std::nullopt;
    }
    Expr span = in[i] + Expr::constant(pb + pe - dk);
    Expr s = Expr::constant(strides[i]);
    if (!ceil_mode) {
      out.push_back(Expr::floordiv(span, s) + Expr::constant(1));
    } else if (auto c = in[i].constant_value()) {
      int64_t sp = *c + pb + pe - dk;
      int64_t o = (sp + strides[i] - 1) / strides[i] + 1;
      if ((o - 1) * strides[i] >= *c + pb) --o;
      out.push_back(Expr::constant(o));
    } else {
      out.push_back(Expr::fresh());
    }
  }
  return out;
}

Status infer_conv_like(InferContext& ctx, std::optional<Expr> channels, const std::vector<int64_t>& kernel,
                       bool ceil_mode) {
  const TypeInfo& x = ctx.input(0);
  if (!x.shape || x.shape->size() < 2) {
    ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
    return Status::ok();
  }
  SymShape spatial(x.shape->begin() + 2, x.shape->end());
  SymShape out{(*x.shape)[0], channels ? *channels : (*x.shape)[1]};
  auto sp = kernel.size() == spatial.size() ? conv_output_dims(ctx.node(), spatial, kernel, ceil_mode) : std::nullopt;
  if (sp) out.insert(out.end(), sp->begin(), sp->end());
  else
    for (size_t i = 0; i < spatial.size(); ++i) out.push_back(ctx.fresh());
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  return Status::ok();
}

Status infer_conv_by_weight(InferContext& ctx, size_t w_input, ir::DataType elem) {
  const TypeInfo& w = ctx.input(w_input);
  std::vector<int64_t> kernel = ctx.node().attr_ints("kernel_shape");
  std::optional<Expr> channels;
  if (w.shape && w.shape->size() >= 2) {
    channels = (*w.shape)[0];
    if (kernel.empty()) {
      for (size_t i = 2; i < w.shape->size(); ++i) {
        auto k = (*w.shape)[i].constant_value();
        if (!k) {
          kernel.clear();
          break;
        }
        kernel.push_back(*k);
      }
    }
  }
  if (!channels) channels = ctx.fresh();
  OT_RETURN_IF_ERROR(infer_conv_like(ctx, channels, kernel, false));
  ctx.output(0).elem = elem;
  return Status::ok();
}

std::optional<SymShape> matmul_shape(const SymShape& a0, const SymShape& b0, bool* error) {
  if (a0.empty() || b0.empty()) {
    *error = true;
    return std::nullopt;
  }
  SymShape a = a0, b = b0;
  bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), Expr::constant(1));
  if (b1) b.push_back(Expr::constant(1));
  const Expr& ka = a.back();
  const Expr& kb = b[b.size() - 2];
  if (ka.constant_value() && kb.constant_value() && *ka.constant_value() != *kb.constant_value()) {
    *error = true;
    return std::nullopt;
  }
  SymShape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  auto batch = broadcast({&ba, &bb}, error);
  if (!batch) return std::nullopt;
  SymShape out = *batch;
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  return out;
}

}  // namespace onnxtrim::ops::nn
