// Conv: N-D grouped convolution via im2col + GEMM.
#include <cstdlib>
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
template <typename T>
Tensor conv_typed(const Tensor& x, const Tensor& w, const Tensor* b, const nn::Geometry& g, int64_t group) {
  int64_t N = x.dims()[0], C = x.dims()[1], M = w.dims()[0];
  int64_t Cg = C / group, Mg = M / group;
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out), ks = numel_of(g.kernel);
  Tensor y(dtype_of<T>(), g.output_dims(N, M));
  if (y.numel() == 0) return y;
  T* py = y.mutable_data<T>();
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  // A pointwise convolution (1x1 kernel, stride 1, no padding) multiplies the input directly.
  bool pointwise = ks == 1 && in_size == out_size;
  for (size_t d = 0; d < g.strides.size() && pointwise; ++d)
    pointwise = g.strides[d] == 1 && g.pads[d] == 0 && g.pads[d + g.strides.size()] == 0;
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(Cg * ks * out_size));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T* xg = px + (n * C + gi * Cg) * in_size;
      const T* B = xg;
      if (!pointwise) {
        if (Cg * ks > 0) nn::im2col<T>(xg, Cg, g, T(0), col.data());
        B = col.data();
      }
      T* yg = py + (n * M + gi * Mg) * out_size;
      int64_t K = Cg * ks;
      nn::gemm(false, false, Mg, out_size, K, T(1), pw + gi * Mg * K, K, B, out_size, T(0), yg, out_size);
    }
  if (b) nn::add_channel_bias(py, b->data<T>(), N, M, out_size);
  return y;
}

// t's elements, of type From, converted to To.
template <typename From, typename To>
Tensor conv_convert(const Tensor& t) {
  Tensor out(dtype_of<To>(), t.dims());
  if (t.numel() == 0) return out;
  const From* p = t.data<From>();
  To* o = out.mutable_data<To>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) o[i] = static_cast<To>(p[i]);
  return out;
}

Status eval_conv(KernelContext& ctx) {
  const Tensor *px, *pw, *b;
  OT_RETURN_IF_ERROR(nn::conv_inputs(ctx, &px, &pw, &b));
  const Tensor& x = *px;
  const Tensor& w = *pw;
  int64_t group = ctx.node().attr_int("group", 1);
  int64_t C = x.dims()[1], M = w.dims()[0];
  if (group <= 0 || C % group != 0 || M % group != 0) return ctx.error("Conv group must divide the channel counts");
  if (w.dims()[1] != C / group) return ctx.error("Conv weight channel dim must equal C / group");
  if (b && (b->rank() != 1 || b->dims()[0] != M)) return ctx.error("Conv bias must be 1-D of size M");
  nn::Geometry g;
  OT_RETURN_IF_ERROR(nn::conv_geometry(ctx, x, w, "W", &g));
  DataType dt = x.dtype();
  if (dt == DataType::kFloat && !ctx.fast_float()) {
    // float convolutions accumulate in double (dgemm): a float GEMM's rounding depends on the
    // BLAS kernel's summation order, and ill-conditioned models (large activations, softmax
    // after) then drift visibly from the reference and from ONNX Runtime.
    Tensor bd;
    if (b) bd = conv_convert<float, double>(*b);
    Tensor yd =
        conv_typed<double>(conv_convert<float, double>(x), conv_convert<float, double>(w), b ? &bd : nullptr, g, group);
    ctx.set_output(0, conv_convert<double, float>(yd));
    return Status::ok();
  }
  Tensor y;
  auto typed = [&](auto tag, const std::vector<const Tensor*>& in) {
    return conv_typed<typename decltype(tag)::type>(*in[0], *in[1], in[2], g, group);
  };
  if (!nn::run_float_kernel(dt, {&x, &w, b}, typed, &y))
    return ctx.error("Conv does not support element type " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_conv(InferContext& ctx) { return nn::infer_conv_by_weight(ctx, 1, ctx.input(0).elem); }

// ---- cost
// Each output element sums over one filter: the weight's elements per output channel.
double cost_conv(const ir::Node& n, const CostContext& c) { return c.numel(n.output(0)) * c.filter(n.input(1)); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Conv, "", "Conv", (std::vector<int>{1, 11, 22}), eval_conv);
ONNXTRIM_REGISTER_INFER(Conv, "", "Conv", infer_conv);
ONNXTRIM_REGISTER_TYPES(Conv, "", "Conv", "T T T", {{"T", kFloatTypes}});
ONNXTRIM_REGISTER_COST(Conv, "", "Conv", cost_conv);

}  // namespace onnxtrim::ops
