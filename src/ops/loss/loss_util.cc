#include "ops/loss/loss_util.h"

#include <cmath>

namespace onnxtrim::ops::loss {

namespace {
void store(Tensor& t, int64_t i, double v) {
  dispatch(t.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    t.mutable_data<T>()[i] = T(static_cast<compute_t<T>>(v));
  });
}
}  // namespace

Status nll(const KernelContext& ctx, const Tensor& logp, const Tensor& target, const Tensor* weight, DataType out_type,
           Tensor* out) {
  if (logp.rank() < 2) return ctx.error("the input must have rank >= 2 ([N, C, ...])");
  int64_t n = logp.dims()[0], c = logp.dims()[1];
  int64_t inner = numel_of(Dims(logp.dims().begin() + 2, logp.dims().end()));
  if (target.numel() != n * inner) return ctx.error("the target shape does not match the input");
  std::string reduction = ctx.node().attr_string("reduction", "mean");
  std::optional<int64_t> ignore;
  if (const ir::Attribute* a = ctx.node().attr("ignore_index")) ignore = a->i;
  std::vector<int64_t> t = to_int64_vector(target);
  std::vector<double> losses(static_cast<size_t>(n * inner), 0.0);
  double wsum = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t k = t[static_cast<size_t>(b * inner + i)];
      if (ignore && k == *ignore) continue;
      if (k < 0 || k >= c) return ctx.error("a target class is out of range");
      double w = weight ? element_as_double(*weight, k) : 1.0;
      losses[static_cast<size_t>(b * inner + i)] = -element_as_double(logp, (b * c + k) * inner + i) * w;
      wsum += w;
    }
  if (reduction == "none") {
    *out = Tensor(out_type, target.dims());
    for (size_t i = 0; i < losses.size(); ++i) store(*out, static_cast<int64_t>(i), losses[i]);
    return Status::ok();
  }
  double sum = 0;
  for (double l : losses) sum += l;
  *out = Tensor(out_type, {});
  if (reduction == "sum") store(*out, 0, sum);
  else if (reduction == "mean") store(*out, 0, wsum == 0 ? 0.0 : sum / wsum);
  else return ctx.error("unknown reduction '" + reduction + "'");
  return Status::ok();
}

Status infer_loss(InferContext& ctx) {
  DataType elem = ctx.input(0).elem;
  std::string reduction = ctx.node().attr_string("reduction", "mean");
  if (reduction == "none") ctx.output(0) = TypeInfo::tensor(elem, ctx.input(1).shape);
  else ctx.output(0) = TypeInfo::tensor(elem, SymShape{});
  if (ctx.num_outputs() > 1 && ctx.has_output(1)) propagate_same(ctx, 1, 0);
  return Status::ok();
}

}  // namespace onnxtrim::ops::loss
