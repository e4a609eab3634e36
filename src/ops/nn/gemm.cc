// Gemm: Y = alpha * op(A) * op(B) + beta * C, C broadcast to [M, N].
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
template <typename T>
Tensor gemm_typed(const Tensor& a, const Tensor& b, const Tensor* c, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                  float alpha, float beta) {
  Tensor y(dtype_of<T>(), {M, N});
  if (M * N == 0) return y;
  T* py = y.mutable_data<T>();
  if (c) {
    BroadcastIndex ic(c->dims(), {M, N});
    const T* pc = c->data<T>();
    for (int64_t i = 0; i < M * N; ++i, ic.next()) py[i] = pc[ic.offset()];
  }
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    nn::gemm(ta, tb, M, N, K, T(alpha), pa, ta ? M : K, pb, tb ? K : N, c ? T(beta) : T(0), py, N);
  } else {
    // Integer types: attributes are floats; integral alpha/beta keep the product exact.
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        T acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc = nn::wrap_add(acc, nn::wrap_mul(ta ? pa[k * M + m] : pa[m * K + k], tb ? pb[n * K + k] : pb[k * N + n]));
        T& out = py[m * N + n];
        T cv = c ? out : T(0);
        if (alpha == 1.f && (beta == 1.f || !c)) {
          out = nn::wrap_add(acc, cv);
        } else {
          out = static_cast<T>(static_cast<double>(alpha) * static_cast<double>(acc) +
                               static_cast<double>(beta) * static_cast<double>(cv));
        }
      }
  }
  return y;
}

Status eval_gemm(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("Gemm needs inputs A and B");
  if (ctx.opset() < 11 && !ctx.has_input(2)) return ctx.error("Gemm before opset 11 requires input C");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (a.rank() != 2 || b.rank() != 2) return ctx.error("Gemm inputs A and B must be 2-D");
  if (a.dtype() != b.dtype() || (c && c->dtype() != a.dtype()))
    return ctx.error("Gemm inputs have different element types");
  bool ta = ctx.node().attr_int("transA", 0) != 0;
  bool tb = ctx.node().attr_int("transB", 0) != 0;
  float alpha = ctx.node().attr_float("alpha", 1.f);
  float beta = ctx.node().attr_float("beta", 1.f);
  int64_t M = ta ? a.dims()[1] : a.dims()[0];
  int64_t K = ta ? a.dims()[0] : a.dims()[1];
  int64_t K2 = tb ? b.dims()[1] : b.dims()[0];
  int64_t N = tb ? b.dims()[0] : b.dims()[1];
  if (K != K2) return ctx.error("Gemm inner dimensions differ: " + std::to_string(K) + " vs " + std::to_string(K2));
  if (c) {
    if (c->rank() > 2) return ctx.error("Gemm input C must have rank <= 2");
    auto bc = broadcast_shapes(c->dims(), {M, N});
    if (!bc || *bc != Dims{M, N}) return ctx.error("Gemm input C does not broadcast to [M, N]");
  }
  DataType dt = a.dtype();
  if (dt == DataType::kFloat16 || dt == DataType::kBFloat16) {
    Tensor cf;
    if (c) cf = nn::to_float_tensor(*c);
    Tensor r = gemm_typed<float>(nn::to_float_tensor(a), nn::to_float_tensor(b), c ? &cf : nullptr, ta, tb, M, N, K,
                                 alpha, beta);
    ctx.set_output(0, nn::from_float_tensor(r, dt));
    return Status::ok();
  }
  // The types Gemm takes besides float16 and bfloat16 (above): float, double, 32- and 64-bit integers.
  Tensor out;
  bool ok = false;
  dispatch(dt, kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_half_like<T> && sizeof(T) >= 4) {
      out = gemm_typed<T>(a, b, c, ta, tb, M, N, K, alpha, beta);
      ok = true;
    }
  });
  if (!ok) return ctx.error("Gemm does not support element type " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_gemm(InferContext& ctx) {
  const TypeInfo& a = ctx.input(0);
  const TypeInfo& b = ctx.input(1);
  std::optional<SymShape> out;
  if (a.shape && b.shape && a.shape->size() == 2 && b.shape->size() == 2) {
    bool ta = ctx.node().attr_int("transA", 0) != 0, tb = ctx.node().attr_int("transB", 0) != 0;
    Expr m = (*a.shape)[ta ? 1 : 0], ka = (*a.shape)[ta ? 0 : 1];
    Expr kb = (*b.shape)[tb ? 1 : 0], n = (*b.shape)[tb ? 0 : 1];
    if (ka.constant_value() && kb.constant_value() && *ka.constant_value() != *kb.constant_value())
      return ctx.error("Gemm inner dimensions do not match");
    out = SymShape{m, n};
  }
  ctx.output(0) = TypeInfo::tensor(a.elem, out);
  return Status::ok();
}

// ---- cost
// Each output element sums over K: A's dim 1, or its dim 0 with transA.
double cost_gemm(const ir::Node& n, const CostContext& c) {
  return c.numel(n.output(0)) * c.dim(n.input(0), n.attr_int("transA", 0) ? 0 : 1);
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Gemm, "", "Gemm", (std::vector<int>{1, 6, 7, 9, 11, 13}), eval_gemm);
ONNXTRIM_REGISTER_INFER(Gemm, "", "Gemm", infer_gemm);
ONNXTRIM_REGISTER_TYPES(Gemm, "", "Gemm", "T T T",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64,
                                                        ir::DataType::kUint32, ir::DataType::kUint64})}});
ONNXTRIM_REGISTER_COST(Gemm, "", "Gemm", cost_gemm);

}  // namespace onnxtrim::ops
