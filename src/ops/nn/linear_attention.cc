// LinearAttention (27): recurrent linear attention over packed [B, T, H*D] inputs. Per key/value
// head a state S [d_k, d_v] (past_state, else zeros) is updated token by token:
//   linear:      S = S + k v^T
//   gated:       S = exp(g) S + k v^T
//   delta:       S = S + beta k (v - S^T k)^T
//   gated_delta: S' = exp(g) S;  S = S' + beta k (v - S'^T k)^T
// where the decay g is per key dimension (last dim H_kv * d_k, scaling the rows of S) or per
// head (last dim H_kv), and beta is per head (H_kv) or shared (1). Query head h reads state
// h / (H_q / H_kv): o = scale q^T S, scale = 1/sqrt(d_k) unless given. Outputs the packed
// [B, T, H_q * d_v] output and present_state [B, H_kv, d_k, d_v].
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_linear_attention(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.error("LinearAttention needs query, key and value");
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  int64_t hq = n.attr_int("q_num_heads", 0), hkv = n.attr_int("kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    return ctx.error("LinearAttention needs q_num_heads a positive multiple of kv_num_heads");
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3)
    return ctx.error("LinearAttention inputs must be 3-D [B, T, H*D]");
  int64_t B = q.dims()[0], T = q.dims()[1];
  if (q.dims()[2] % hq != 0 || k.dims()[2] % hkv != 0 || v.dims()[2] % hkv != 0)
    return ctx.error("LinearAttention hidden sizes must be divisible by the head counts");
  int64_t dk = q.dims()[2] / hq, dv = v.dims()[2] / hkv;
  if (k.dims()[2] / hkv != dk || k.dims()[0] != B || v.dims()[0] != B || k.dims()[1] != T || v.dims()[1] != T)
    return ctx.error("LinearAttention query, key and value shapes are inconsistent");
  std::string rule = n.attr_string("update_rule", "gated_delta");
  bool gated = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (rule != "linear" && !gated && !delta) return ctx.error("LinearAttention update_rule '" + rule + "' is unknown");
  const Tensor* past = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const Tensor* decay = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  const Tensor* beta = ctx.has_input(5) ? &ctx.input(5) : nullptr;
  if (gated && !decay) return ctx.error("LinearAttention '" + rule + "' needs decay");
  if (delta && !beta) return ctx.error("LinearAttention '" + rule + "' needs beta");
  if (past && (past->rank() != 4 || past->dims() != Dims{B, hkv, dk, dv}))
    return ctx.error("LinearAttention past_state must be [B, H_kv, d_k, d_v]");
  int64_t decay_w = decay ? decay->dims().back() : 0, beta_w = beta ? beta->dims().back() : 0;
  if (decay && (decay->rank() != 3 || (decay_w != hkv * dk && decay_w != hkv)))
    return ctx.error("LinearAttention decay must be [B, T, H_kv * d_k] or [B, T, H_kv]");
  if (beta && (beta->rank() != 3 || (beta_w != hkv && beta_w != 1)))
    return ctx.error("LinearAttention beta must be [B, T, H_kv] or [B, T, 1]");
  double scale = n.attr_float("scale", 0.0f);
  if (scale == 0.0) scale = 1.0 / std::sqrt(static_cast<double>(dk));
  std::vector<double> S(static_cast<size_t>(B * hkv * dk * dv), 0.0);
  if (past)
    for (int64_t i = 0; i < past->numel(); ++i) S[static_cast<size_t>(i)] = element_as_double(*past, i);
  Tensor out(q.dtype(), {B, T, hq * dv});
  std::vector<double> kv(static_cast<size_t>(dk)), vv(static_cast<size_t>(dv)), pred(static_cast<size_t>(dv));
  int64_t group = hq / hkv;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t h = 0; h < hkv; ++h) {
        double* s = &S[static_cast<size_t>((b * hkv + h) * dk * dv)];
        for (int64_t i = 0; i < dk; ++i)
          kv[static_cast<size_t>(i)] = element_as_double(k, (b * T + t) * hkv * dk + h * dk + i);
        for (int64_t j = 0; j < dv; ++j)
          vv[static_cast<size_t>(j)] = element_as_double(v, (b * T + t) * hkv * dv + h * dv + j);
        if (gated) {
          for (int64_t i = 0; i < dk; ++i) {
            double g = decay_w == hkv ? element_as_double(*decay, (b * T + t) * hkv + h)
                                      : element_as_double(*decay, (b * T + t) * hkv * dk + h * dk + i);
            double e = std::exp(g);
            for (int64_t j = 0; j < dv; ++j) s[i * dv + j] *= e;
          }
        }
        if (delta) {
          double bt = element_as_double(*beta, (b * T + t) * beta_w + (beta_w == 1 ? 0 : h));
          for (int64_t j = 0; j < dv; ++j) {
            double acc = 0;
            for (int64_t i = 0; i < dk; ++i) acc += s[i * dv + j] * kv[static_cast<size_t>(i)];
            pred[static_cast<size_t>(j)] = vv[static_cast<size_t>(j)] - acc;
          }
          for (int64_t i = 0; i < dk; ++i)
            for (int64_t j = 0; j < dv; ++j)
              s[i * dv + j] += bt * kv[static_cast<size_t>(i)] * pred[static_cast<size_t>(j)];
        } else {
          for (int64_t i = 0; i < dk; ++i)
            for (int64_t j = 0; j < dv; ++j) s[i * dv + j] += kv[static_cast<size_t>(i)] * vv[static_cast<size_t>(j)];
        }
      }
      for (int64_t h = 0; h < hq; ++h) {
        const double* s = &S[static_cast<size_t>((b * hkv + h / group) * dk * dv)];
        for (int64_t j = 0; j < dv; ++j) {
          double acc = 0;
          for (int64_t i = 0; i < dk; ++i)
            acc += element_as_double(q, (b * T + t) * hq * dk + h * dk + i) * s[i * dv + j];
          store_double(out, (b * T + t) * hq * dv + h * dv + j, scale * acc);
        }
      }
    }
  ctx.set_output(0, std::move(out));
  if (ctx.wants_output(1)) {
    Tensor st(past ? past->dtype() : q.dtype(), {B, hkv, dk, dv});
    for (size_t i = 0; i < S.size(); ++i) store_double(st, static_cast<int64_t>(i), S[i]);
    ctx.set_output(1, std::move(st));
  }
  return Status::ok();
}

// ---- shape inference
Status infer_linear_attention(InferContext& ctx) {
  const ir::Node& n = ctx.node();
  const TypeInfo& q = ctx.input(0);
  const TypeInfo& k = ctx.input(1);
  const TypeInfo& v = ctx.input(2);
  int64_t hq = n.attr_int("q_num_heads", 0), hkv = n.attr_int("kv_num_heads", 0);
  ctx.output(0) = TypeInfo::tensor(q.elem, std::nullopt);
  if (ctx.has_output(1)) ctx.output(1) = TypeInfo::tensor(ctx.has_input(3) ? ctx.input(3).elem : q.elem, std::nullopt);
  if (hq <= 0 || hkv <= 0 || !q.shape || !v.shape || q.shape->size() != 3 || v.shape->size() != 3) return Status::ok();
  Expr dv = Expr::floordiv((*v.shape)[2], dim(hkv));
  ctx.output(0).shape = SymShape{(*q.shape)[0], (*q.shape)[1], dv * dim(hq)};
  if (ctx.has_output(1) && k.shape && k.shape->size() == 3)
    ctx.output(1).shape = SymShape{(*q.shape)[0], dim(hkv), Expr::floordiv((*k.shape)[2], dim(hkv)), dv};
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LinearAttention, "", "LinearAttention", (std::vector<int>{27}), eval_linear_attention);
ONNXTRIM_REGISTER_INFER(LinearAttention, "", "LinearAttention", infer_linear_attention);
ONNXTRIM_REGISTER_TYPES(LinearAttention, "", "LinearAttention", "T T T S T T",
                        {{"T", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})},
                         {"S", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})}});

}  // namespace onnxtrim::ops
