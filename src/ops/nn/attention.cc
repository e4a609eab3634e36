// Attention (opsets 23, 24): scaled dot-product attention over Q [B, Hq, Sq, D] (or 3-D
// [B, Sq, Hq*D] with q_num_heads), K [B, Hkv, Skv, D] and V [B, Hkv, Skv, Dv]; query head h reads
// key/value head h / (Hq / Hkv) (grouped-query attention).
//   past_key/past_value are prepended along the sequence axis (present_key/value are the result);
//   scores = (Q sqrt(scale)) (K sqrt(scale))^T, scale = 1/sqrt(D) by default;
//   softcap c > 0: scores = c tanh(scores / c);
//   bias: the causal frontier (key j allowed for query i iff j <= i + offset, offset = past length,
//   or nonpad_kv_seqlen[b] - Sq), keys at or past nonpad_kv_seqlen[b], and attn_mask (bool:
//   false disallows; numeric: added; a short last axis is padded with disallowed positions);
//   Y = softmax(scores + bias) V, where a row with no allowed key is all zeros.
// qk_matmul_output: mode 0 the raw scores, 1 after softcap, 2 with the bias, 3 the softmax.
// Computed in double; outputs in the input types.
#include <cmath>
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// A [B, H, S, D] view of a 3-D [B, S, H*D] or 4-D input, as doubles.
struct Heads {
  int64_t b = 0, h = 0, s = 0, d = 0;
  std::vector<double> v;
  double at(int64_t bi, int64_t hi, int64_t si, int64_t di) const {
    return v[static_cast<size_t>(((bi * h + hi) * s + si) * d + di)];
  }
};

bool to_heads(const Tensor& t, int64_t heads, Heads* out) {
  if (t.rank() == 4) {
    out->b = t.dims()[0];
    out->h = t.dims()[1];
    out->s = t.dims()[2];
    out->d = t.dims()[3];
    out->v.resize(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) out->v[static_cast<size_t>(i)] = element_as_double(t, i);
    return true;
  }
  if (t.rank() != 3 || heads <= 0 || t.dims()[2] % heads != 0) return false;
  out->b = t.dims()[0];
  out->s = t.dims()[1];
  out->h = heads;
  out->d = t.dims()[2] / heads;
  out->v.resize(static_cast<size_t>(t.numel()));
  for (int64_t bi = 0; bi < out->b; ++bi)
    for (int64_t si = 0; si < out->s; ++si)
      for (int64_t hi = 0; hi < out->h; ++hi)
        for (int64_t di = 0; di < out->d; ++di)
          out->v[static_cast<size_t>(((bi * out->h + hi) * out->s + si) * out->d + di)] =
              element_as_double(t, ((bi * out->s + si) * out->h + hi) * out->d + di);
  return true;
}

// Concatenates past (4-D) and current along the sequence axis.
bool concat_past(const Tensor& past, Heads* cur) {
  if (past.rank() != 4 || past.dims()[0] != cur->b || past.dims()[1] != cur->h || past.dims()[3] != cur->d)
    return false;
  int64_t ps = past.dims()[2];
  Heads out = *cur;
  out.s = ps + cur->s;
  out.v.assign(static_cast<size_t>(out.b * out.h * out.s * out.d), 0.0);
  for (int64_t bi = 0; bi < out.b; ++bi)
    for (int64_t hi = 0; hi < out.h; ++hi)
      for (int64_t si = 0; si < out.s; ++si)
        for (int64_t di = 0; di < out.d; ++di)
          out.v[static_cast<size_t>(((bi * out.h + hi) * out.s + si) * out.d + di)] =
              si < ps ? element_as_double(past, ((bi * out.h + hi) * ps + si) * out.d + di)
                      : cur->at(bi, hi, si - ps, di);
  *cur = std::move(out);
  return true;
}

Tensor from_heads(const Heads& h, DataType dt) {
  Tensor t(dt, {h.b, h.h, h.s, h.d});
  for (size_t i = 0; i < h.v.size(); ++i) store_double(t, static_cast<int64_t>(i), h.v[i]);
  return t;
}

// ---- evaluate
Status eval_attention(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2)) return ctx.error("Attention needs Q, K and V");
  const Tensor& q_t = ctx.input(0);
  const Tensor& k_t = ctx.input(1);
  const Tensor& v_t = ctx.input(2);
  if (!ir::dtype_is_float(q_t.dtype()) || !ir::dtype_is_float(v_t.dtype()) || k_t.dtype() != q_t.dtype())
    return ctx.error("Attention takes float Q, K, V (Q and K of one type)");
  bool three_d = q_t.rank() == 3;
  Heads q, k, v;
  if (!to_heads(q_t, n.attr_int("q_num_heads", 0), &q))
    return ctx.error("Attention Q must be 4-D, or 3-D with q_num_heads dividing its last dim");
  int64_t kvh = n.attr_int("kv_num_heads", 0);
  if (!to_heads(k_t, kvh, &k) || !to_heads(v_t, kvh, &v))
    return ctx.error("Attention K and V must be 4-D, or 3-D with kv_num_heads dividing their last dim");
  bool has_past = ctx.has_input(4) || ctx.has_input(5);
  int64_t past_len = 0;
  if (has_past) {
    if (!ctx.has_input(4) || !ctx.has_input(5)) return ctx.error("Attention needs both past_key and past_value");
    past_len = ctx.input(4).rank() == 4 ? ctx.input(4).dims()[2] : 0;
    if (!concat_past(ctx.input(4), &k) || !concat_past(ctx.input(5), &v))
      return ctx.error("Attention past_key/past_value shapes do not match K/V");
  }
  if (k.b != q.b || v.b != q.b || k.s != v.s || k.h != v.h || k.d != q.d || k.h == 0 || q.h % k.h != 0)
    return ctx.error("Attention Q, K, V shapes are inconsistent");
  int64_t B = q.b, Hq = q.h, Sq = q.s, D = q.d, T = k.s, Dv = v.d, group = q.h / k.h;
  std::vector<int64_t> nonpad;
  if (ctx.has_input(6)) {
    nonpad = to_int64_vector(ctx.input(6));
    if (static_cast<int64_t>(nonpad.size()) != B)
      return ctx.error("Attention nonpad_kv_seqlen must have one entry per batch");
  }
  double scale = n.attr("scale") ? n.attr_float("scale", 1.0f) : 1.0 / std::sqrt(static_cast<double>(D));
  double softcap = n.attr_float("softcap", 0.0f);
  bool causal = n.attr_int("is_causal", 0) != 0;
  int64_t mode = n.attr_int("qk_matmul_output_mode", 0);
  // The mask, broadcast to [B, Hq, Sq, mask_len] (right-aligned).
  const Tensor* mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  Dims mdims;
  if (mask) {
    mdims = mask->dims();
    if (mdims.size() > 4 || mdims.empty()) return ctx.error("Attention attn_mask must have rank 1 to 4");
    while (mdims.size() < 4) mdims.insert(mdims.begin(), 1);
    Dims want{B, Hq, Sq, mdims[3]};
    for (int a = 0; a < 3; ++a)
      if (mdims[a] != 1 && mdims[a] != want[a])
        return ctx.error("Attention attn_mask cannot be broadcast to the scores");
    if (mdims[3] > T) return ctx.error("Attention attn_mask is longer than the key sequence");
  }
  bool bool_mask = mask && mask->dtype() == DataType::kBool;
  const double kNegInf = -std::numeric_limits<double>::infinity();
  Heads y{B, Hq, Sq, Dv, std::vector<double>(static_cast<size_t>(B * Hq * Sq * Dv), 0.0)};
  Tensor qk_out;
  bool want_qk = ctx.wants_output(3);
  if (want_qk) qk_out = Tensor(q_t.dtype(), {B, Hq, Sq, T});
  std::vector<double> raw(static_cast<size_t>(T)), capped(static_cast<size_t>(T)), biased(static_cast<size_t>(T)),
      p(static_cast<size_t>(T));
  double rs = std::sqrt(scale);
  for (int64_t b = 0; b < B; ++b) {
    int64_t offset = past_len;
    if (!nonpad.empty() && !has_past) offset = nonpad[static_cast<size_t>(b)] - Sq;
    for (int64_t h = 0; h < Hq; ++h) {
      int64_t kh = h / group;
      for (int64_t i = 0; i < Sq; ++i) {
        bool any = false;
        for (int64_t j = 0; j < T; ++j) {
          double acc = 0;
          for (int64_t d = 0; d < D; ++d) acc += (q.at(b, h, i, d) * rs) * (k.at(b, kh, j, d) * rs);
          raw[j] = acc;
          capped[j] = softcap > 0 ? softcap * std::tanh(acc / softcap) : acc;
          double bias = 0;
          bool allowed = true;
          if (causal && j > i + offset) allowed = false;
          if (!nonpad.empty() && j >= nonpad[static_cast<size_t>(b)]) allowed = false;
          if (mask) {
            if (j >= mdims[3]) {
              allowed = false;
            } else {
              int64_t mi = (((mdims[0] == 1 ? 0 : b) * mdims[1] + (mdims[1] == 1 ? 0 : h)) * mdims[2] +
                            (mdims[2] == 1 ? 0 : i)) *
                               mdims[3] +
                           j;
              if (bool_mask) allowed = allowed && mask->bytes()[mi] != 0;
              else bias = element_as_double(*mask, mi);
            }
          }
          biased[j] = allowed ? capped[j] + bias : kNegInf;
          if (allowed && biased[j] != kNegInf) any = true;
        }
        // Softmax over the allowed keys; a row with none is zero.
        double mx = kNegInf;
        for (int64_t j = 0; j < T; ++j) mx = std::max(mx, biased[j]);
        double sum = 0;
        for (int64_t j = 0; j < T; ++j) {
          p[j] = any ? std::exp(biased[j] - mx) : 0.0;
          sum += p[j];
        }
        for (int64_t j = 0; j < T; ++j) p[j] = sum > 0 ? p[j] / sum : 0.0;
        for (int64_t e = 0; e < Dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < T; ++j) acc += p[j] * v.at(b, kh, j, e);
          y.v[static_cast<size_t>(((b * Hq + h) * Sq + i) * Dv + e)] = acc;
        }
        if (want_qk) {
          for (int64_t j = 0; j < T; ++j) {
            double val = mode == 0 ? raw[j] : mode == 1 ? capped[j] : mode == 2 ? biased[j] : p[j];
            store_double(qk_out, ((b * Hq + h) * Sq + i) * T + j, val);
          }
        }
      }
    }
  }
  if (mode < 0 || mode > 3) return ctx.error("Attention qk_matmul_output_mode must be 0 to 3");
  if (three_d) {
    Tensor out(q_t.dtype(), {B, Sq, Hq * Dv});
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t i = 0; i < Sq; ++i)
          for (int64_t e = 0; e < Dv; ++e) store_double(out, ((b * Sq + i) * Hq + h) * Dv + e, y.at(b, h, i, e));
    ctx.set_output(0, std::move(out));
  } else {
    ctx.set_output(0, from_heads(y, q_t.dtype()));
  }
  if (ctx.wants_output(1)) ctx.set_output(1, from_heads(k, k_t.dtype()));
  if (ctx.wants_output(2)) ctx.set_output(2, from_heads(v, v_t.dtype()));
  if (want_qk) ctx.set_output(3, std::move(qk_out));
  return Status::ok();
}

// ---- shape inference
Status infer_attention(InferContext& ctx) {
  const ir::Node& n = ctx.node();
  const TypeInfo& q = ctx.input(0);
  const TypeInfo& k = ctx.input(1);
  const TypeInfo& v = ctx.input(2);
  ctx.output(0) = TypeInfo::tensor(q.elem, std::nullopt);
  for (size_t o = 1; o < ctx.num_outputs(); ++o)
    if (ctx.has_output(o)) ctx.output(o) = TypeInfo::tensor(o == 2 ? v.elem : q.elem, std::nullopt);
  if (!q.shape || !k.shape || !v.shape || q.shape->size() != k.shape->size() || q.shape->size() != v.shape->size())
    return Status::ok();
  bool three = q.shape->size() == 3;
  if (!three && q.shape->size() != 4) return ctx.error("Attention Q must be 3-D or 4-D");
  int64_t qh = n.attr_int("q_num_heads", 0), kvh = n.attr_int("kv_num_heads", 0);
  if (three && (qh <= 0 || kvh <= 0)) return ctx.error("Attention with 3-D inputs needs q_num_heads and kv_num_heads");
  const SymShape& qs = *q.shape;
  const SymShape& ks = *k.shape;
  const SymShape& vs = *v.shape;
  Expr batch = qs[0];
  Expr sq = three ? qs[1] : qs[2];
  Expr hq = three ? dim(qh) : qs[1];
  Expr hkv = three ? dim(kvh) : ks[1];
  Expr skv = three ? ks[1] : ks[2];
  Expr d = three ? Expr::floordiv(qs[2], dim(qh)) : qs[3];
  Expr dv = three ? Expr::floordiv(vs[2], dim(kvh)) : vs[3];
  Expr total = skv;
  if (ctx.has_input(4) && ctx.input(4).shape && ctx.input(4).shape->size() == 4) total = (*ctx.input(4).shape)[2] + skv;
  ctx.output(0).shape =
      three ? SymShape{batch, sq, Expr::floordiv(vs[2], dim(kvh)) * dim(qh)} : SymShape{batch, hq, sq, dv};
  if (ctx.has_output(1)) ctx.output(1).shape = SymShape{batch, hkv, total, d};
  if (ctx.has_output(2)) ctx.output(2).shape = SymShape{batch, hkv, total, dv};
  if (ctx.has_output(3)) ctx.output(3).shape = SymShape{batch, hq, sq, total};
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Attention, "", "Attention", (std::vector<int>{23, 24}), eval_attention);
ONNXTRIM_REGISTER_INFER(Attention, "", "Attention", infer_attention);
ONNXTRIM_REGISTER_TYPES(Attention, "", "Attention", "T1 T1 T2 U T1 T2 nonpad_kv_seqlen",
                        {{"T1", kFloatTypes},
                         {"T2", kFloatTypes},
                         {"U", kNumericTypes | type_bits({ir::DataType::kBool})},
                         {"nonpad_kv_seqlen", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
