// ConvTranspose: N-D grouped transposed convolution via GEMM + col2im.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
struct TGeom {
  Dims in, kernel, strides, dilations, pads, out;
};

std::string transpose_geometry(const ir::Node& node, TGeom* g) {
  size_t nsp = g->in.size();
  g->strides = node.attr_ints("strides", Dims(nsp, 1));
  g->dilations = node.attr_ints("dilations", Dims(nsp, 1));
  if (g->strides.empty()) g->strides.assign(nsp, 1);
  if (g->dilations.empty()) g->dilations.assign(nsp, 1);
  Dims opad = node.attr_ints("output_padding", Dims(nsp, 0));
  if (opad.empty()) opad.assign(nsp, 0);
  if (g->strides.size() != nsp || g->dilations.size() != nsp || opad.size() != nsp)
    return "strides, dilations and output_padding must have one value per spatial axis";
  for (size_t i = 0; i < nsp; ++i)
    if (g->strides[i] <= 0 || g->dilations[i] <= 0) return "strides and dilations must be positive";
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  Dims out_shape = node.attr_ints("output_shape");
  if (out_shape.size() == nsp + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (!out_shape.empty() && out_shape.size() != nsp) return "output_shape has the wrong length";
  g->pads.assign(2 * nsp, 0);
  g->out.assign(nsp, 0);
  bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (!same && auto_pad != "NOTSET" && auto_pad != "VALID" && !auto_pad.empty())
    return "unknown auto_pad value '" + auto_pad + "'";
  if (!out_shape.empty() || same) {
    for (size_t i = 0; i < nsp; ++i) {
      int64_t dk = (g->kernel[i] - 1) * g->dilations[i] + 1;
      int64_t target = !out_shape.empty() ? out_shape[i] : g->in[i] * g->strides[i];
      int64_t total = g->strides[i] * (g->in[i] - 1) + opad[i] + dk - target;
      if (total < 0) total = 0;  // the output is then larger than what the input covers: zeros
      if (auto_pad == "SAME_UPPER") {
        g->pads[i] = total / 2;
        g->pads[i + nsp] = total - total / 2;
      } else {
        g->pads[i] = total - total / 2;
        g->pads[i + nsp] = total / 2;
      }
      g->out[i] = target;
    }
    return "";
  }
  if (auto_pad != "VALID") {
    Dims pads = node.attr_ints("pads", Dims(2 * nsp, 0));
    if (pads.empty()) pads.assign(2 * nsp, 0);
    if (pads.size() != 2 * nsp) return "pads has the wrong length";
    g->pads = pads;
  }
  for (size_t i = 0; i < nsp; ++i) {
    int64_t dk = (g->kernel[i] - 1) * g->dilations[i] + 1;
    g->out[i] = g->strides[i] * (g->in[i] - 1) + opad[i] + dk - g->pads[i] - g->pads[i + nsp];
    if (g->out[i] < 0) return "output size would be negative";
  }
  return "";
}

template <typename T>
Tensor conv_transpose_typed(const Tensor& x, const Tensor& w, const Tensor* b, const TGeom& g, int64_t group) {
  int64_t N = x.dims()[0], C = x.dims()[1];
  int64_t Cg = C / group, Mg = w.dims()[1], M = Mg * group;
  size_t nsp = g.in.size();
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out), ks = numel_of(g.kernel);
  Dims out_dims{N, M};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  Tensor y(dtype_of<T>(), out_dims);
  if (y.numel() == 0) return y;
  T* py = y.mutable_data<T>();
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  std::vector<T> col(static_cast<size_t>(Mg * ks * in_size));
  // Precompute, for each kernel position and input position, the output offset (or -1).
  std::vector<int64_t> kidx(nsp), iidx(nsp);
  std::vector<int64_t> target(static_cast<size_t>(ks * in_size));
  for (int64_t k = 0; k < ks; ++k) {
    int64_t r = k;
    for (size_t d = nsp; d-- > 0;) {
      kidx[d] = r % g.kernel[d];
      r /= g.kernel[d];
    }
    for (int64_t i = 0; i < in_size; ++i) {
      int64_t ri = i;
      for (size_t d = nsp; d-- > 0;) {
        iidx[d] = ri % g.in[d];
        ri /= g.in[d];
      }
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < nsp; ++d) {
        int64_t p = iidx[d] * g.strides[d] - g.pads[d] + kidx[d] * g.dilations[d];
        if (p < 0 || p >= g.out[d]) {
          inside = false;
          break;
        }
        off = off * g.out[d] + p;
      }
      target[static_cast<size_t>(k * in_size + i)] = inside ? off : -1;
    }
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T* xg = px + (n * C + gi * Cg) * in_size;
      const T* wg = pw + gi * Cg * Mg * ks;
      nn::gemm(true, false, Mg * ks, in_size, Cg, T(1), wg, Mg * ks, xg, in_size, T(0), col.data(), in_size);
      for (int64_t m = 0; m < Mg; ++m) {
        T* ym = py + (n * M + gi * Mg + m) * out_size;
        for (int64_t k = 0; k < ks; ++k) {
          const T* c = col.data() + (m * ks + k) * in_size;
          const int64_t* t = target.data() + k * in_size;
          for (int64_t i = 0; i < in_size; ++i)
            if (t[i] >= 0) ym[t[i]] += c[i];
        }
      }
    }
  if (b) nn::add_channel_bias(py, b->data<T>(), N, M, out_size);
  return y;
}

Status eval_conv_transpose(KernelContext& ctx) {
  const Tensor *px, *pw, *b;
  OT_RETURN_IF_ERROR(nn::conv_inputs(ctx, &px, &pw, &b));
  const Tensor& x = *px;
  const Tensor& w = *pw;
  int64_t group = ctx.node().attr_int("group", 1);
  int64_t C = x.dims()[1];
  if (group <= 0 || C % group != 0) return ctx.error("ConvTranspose group must divide the input channel count");
  if (w.dims()[0] != C) return ctx.error("ConvTranspose W.shape[0] must equal the input channel count");
  int64_t M = w.dims()[1] * group;
  if (b && (b->rank() != 1 || b->dims()[0] != M)) return ctx.error("ConvTranspose bias must be 1-D of size M");
  TGeom g;
  g.in.assign(x.dims().begin() + 2, x.dims().end());
  g.kernel.assign(w.dims().begin() + 2, w.dims().end());
  Dims ks = ctx.node().attr_ints("kernel_shape");
  if (!ks.empty() && ks != g.kernel) return ctx.error("ConvTranspose kernel_shape does not match W");
  std::string err = transpose_geometry(ctx.node(), &g);
  if (!err.empty()) return ctx.error("ConvTranspose: " + err);
  Tensor y;
  auto typed = [&](auto tag, const std::vector<const Tensor*>& in) {
    return conv_transpose_typed<typename decltype(tag)::type>(*in[0], *in[1], in[2], g, group);
  };
  if (!nn::run_float_kernel(x.dtype(), {&x, &w, b}, typed, &y))
    return ctx.error("ConvTranspose does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
// out = stride (in - 1) + output_padding + (kernel - 1) dilation + 1 - pads, or in * stride
// with SAME auto_pad, or output_shape when given; channels = W[1] * group.
Status infer_conv_transpose(InferContext& ctx) {
  const ir::Node& n = ctx.node();
  const TypeInfo& x = ctx.input(0);
  const TypeInfo& w = ctx.input(1);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape || x.shape->size() < 3) return Status::ok();
  size_t nsp = x.shape->size() - 2;
  int64_t group = n.attr_int("group", 1);
  std::vector<int64_t> kernel = n.attr_ints("kernel_shape");
  if (kernel.empty() && w.shape && w.shape->size() == nsp + 2)
    for (size_t i = 0; i < nsp; ++i) {
      auto k = (*w.shape)[i + 2].constant_value();
      if (!k) {
        kernel.clear();
        break;
      }
      kernel.push_back(*k);
    }
  SymShape out{(*x.shape)[0], w.shape && w.shape->size() >= 2 ? (*w.shape)[1] * dim(group) : ctx.fresh()};
  std::vector<int64_t> strides = n.attr_ints("strides", std::vector<int64_t>(nsp, 1));
  std::vector<int64_t> dil = n.attr_ints("dilations", std::vector<int64_t>(nsp, 1));
  std::vector<int64_t> opad = n.attr_ints("output_padding", std::vector<int64_t>(nsp, 0));
  std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * nsp, 0));
  std::vector<int64_t> oshape = n.attr_ints("output_shape");
  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (strides.size() != nsp || dil.size() != nsp || opad.size() != nsp || pads.size() != 2 * nsp)
    return ctx.error("ConvTranspose attributes have the wrong length");
  for (size_t i = 0; i < nsp; ++i) {
    const Expr& in = (*x.shape)[i + 2];
    if (!oshape.empty()) {
      if (oshape.size() != nsp) return ctx.error("ConvTranspose output_shape has the wrong length");
      out.push_back(dim(oshape[i]));
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back(in * dim(strides[i]));
    } else if (kernel.size() == nsp) {
      int64_t p = auto_pad == "VALID" ? 0 : pads[i] + pads[i + nsp];
      out.push_back((in - dim(1)) * dim(strides[i]) + dim(opad[i] + (kernel[i] - 1) * dil[i] + 1 - p));
    } else {
      out.push_back(ctx.fresh());
    }
  }
  ctx.output(0).shape = out;
  return Status::ok();
}

// ---- cost
// Each input element is spread over one filter: the weight's elements per input channel.
double cost_conv_transpose(const ir::Node& n, const CostContext& c) {
  return c.numel(n.input(0)) * c.filter(n.input(1));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_INFER(ConvTranspose, "", "ConvTranspose", infer_conv_transpose);
ONNXTRIM_REGISTER_TYPES(ConvTranspose, "", "ConvTranspose", "T T T", {{"T", kFloatTypes}});
ONNXTRIM_REGISTER_OP(ConvTranspose, "", "ConvTranspose", (std::vector<int>{1, 11, 22}), eval_conv_transpose);
ONNXTRIM_REGISTER_COST(ConvTranspose, "", "ConvTranspose", cost_conv_transpose);

}  // namespace onnxtrim::ops
