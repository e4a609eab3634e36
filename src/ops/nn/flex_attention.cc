// FlexAttention (ai.onnx.preview 1): attention over rank-4 Q [B, Hq, L, E], K [B, Hkv, S, E],
// V [B, Hkv, S, Ev] with optional modifier subgraphs:
//   scores = Q K^T * scale (scale = 1/sqrt(E) unless given); scores = score_mod(scores);
//   probs = softmax(scores) over S; probs = prob_mod(probs); Y = probs V.
// Query head h reads K/V head h / (Hq / Hkv). Scores and probabilities are tensors of
// softmax_precision (float for non-double inputs by default, double for double) as the
// subgraphs see them; arithmetic is in double.
#include <cmath>
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

const ir::Graph* graph_attr(const ir::Node& n, const char* name) {
  const ir::Attribute* a = n.attr(name);
  return a && a->type == ir::AttrType::kGraph ? a->g.get() : nullptr;
}

// Runs a modifier subgraph on t; it must return one tensor of t's shape and type.
Status apply_mod(KernelContext& ctx, const ir::Graph* g, const char* name, Tensor* t) {
  if (!g) return Status::ok();
  auto r = ctx.run_subgraph(*g, {RuntimeValue::of(*t)});
  if (!r) return r.status();
  if (r.value().size() != 1 || !r.value()[0].is_tensor() || r.value()[0].tensor.dims() != t->dims() ||
      r.value()[0].tensor.dtype() != t->dtype())
    return ctx.error(std::string("FlexAttention ") + name + " must return one tensor of its input's shape and type");
  *t = std::move(r.value()[0].tensor);
  return Status::ok();
}

// ---- evaluate
Status eval_flex_attention(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2)) return ctx.error("FlexAttention needs Q, K and V");
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) return ctx.error("FlexAttention inputs must be rank 4");
  int64_t B = q.dims()[0], Hq = q.dims()[1], L = q.dims()[2], E = q.dims()[3];
  int64_t Hkv = k.dims()[1], S = k.dims()[2], Ev = v.dims()[3];
  if (k.dims()[0] != B || v.dims()[0] != B || k.dims()[3] != E || v.dims()[1] != Hkv || v.dims()[2] != S || Hkv == 0 ||
      Hq % Hkv != 0)
    return ctx.error("FlexAttention Q, K, V shapes are inconsistent");
  if (!ir::dtype_is_float(q.dtype())) return ctx.error("FlexAttention takes float types");
  DataType prec = n.attr("softmax_precision") ? static_cast<DataType>(n.attr_int("softmax_precision", 1))
                                              : (q.dtype() == DataType::kDouble ? DataType::kDouble : DataType::kFloat);
  if (!ir::dtype_is_float(prec)) return ctx.error("FlexAttention softmax_precision must be a float type");
  double scale = n.attr("scale") ? n.attr_float("scale", 1.0f) : 1.0 / std::sqrt(static_cast<double>(E));
  int64_t group = Hq / Hkv;
  Tensor scores(prec, {B, Hq, L, S});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j < S; ++j) {
          double acc = 0;
          for (int64_t e = 0; e < E; ++e)
            acc += element_as_double(q, ((b * Hq + h) * L + i) * E + e) *
                   element_as_double(k, ((b * Hkv + h / group) * S + j) * E + e);
          store_double(scores, ((b * Hq + h) * L + i) * S + j, acc * scale);
        }
  OT_RETURN_IF_ERROR(apply_mod(ctx, graph_attr(n, "score_mod"), "score_mod", &scores));
  Tensor probs(prec, {B, Hq, L, S});
  std::vector<double> row(static_cast<size_t>(S));
  for (int64_t r = 0; r < B * Hq * L; ++r) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < S; ++j)
      mx = std::max(mx, row[static_cast<size_t>(j)] = element_as_double(scores, r * S + j));
    double sum = 0;
    for (int64_t j = 0; j < S; ++j) sum += row[static_cast<size_t>(j)] = std::exp(row[static_cast<size_t>(j)] - mx);
    for (int64_t j = 0; j < S; ++j) store_double(probs, r * S + j, row[static_cast<size_t>(j)] / sum);
  }
  OT_RETURN_IF_ERROR(apply_mod(ctx, graph_attr(n, "prob_mod"), "prob_mod", &probs));
  Tensor y(q.dtype(), {B, Hq, L, Ev});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < L; ++i)
        for (int64_t e = 0; e < Ev; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j)
            acc += element_as_double(probs, ((b * Hq + h) * L + i) * S + j) *
                   element_as_double(v, ((b * Hkv + h / group) * S + j) * Ev + e);
          store_double(y, ((b * Hq + h) * L + i) * Ev + e, acc);
        }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: [B, Hq, L, Ev]
Status infer_flex_attention(InferContext& ctx) {
  const TypeInfo& q = ctx.input(0);
  const TypeInfo& v = ctx.input(2);
  ctx.output(0) = TypeInfo::tensor(q.elem, std::nullopt);
  if (q.shape && v.shape && q.shape->size() == 4 && v.shape->size() == 4)
    ctx.output(0).shape = SymShape{(*q.shape)[0], (*q.shape)[1], (*q.shape)[2], (*v.shape)[3]};
  return Status::ok();
}

}  // namespace

// ---- registration (experimental: version 1 of ai.onnx.preview)
ONNXTRIM_REGISTER_OP(FlexAttention, "ai.onnx.preview", "FlexAttention", (std::vector<int>{1}), eval_flex_attention);
ONNXTRIM_REGISTER_INFER(FlexAttention, "ai.onnx.preview", "FlexAttention", infer_flex_attention);

}  // namespace onnxtrim::ops
