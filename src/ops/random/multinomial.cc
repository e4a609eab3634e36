// Multinomial: for each row of unnormalized log-probabilities x [batch, classes], draws
// sample_size class indices; output [batch, sample_size] of `dtype` (int32 default, or int64).
#include <cmath>

#include "ops/random/random_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_multinomial(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Multinomial needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() != 2 || !ir::dtype_is_float(x.dtype()))
    return ctx.error("Multinomial takes float logits of shape [batch, classes]");
  DataType dt = random::dtype_attr(ctx.node(), DataType::kInt32);
  if (dt != DataType::kInt32 && dt != DataType::kInt64) return ctx.error("Multinomial dtype must be int32 or int64");
  int64_t samples = ctx.node().attr_int("sample_size", 1);
  if (samples < 0) return ctx.error("Multinomial sample_size must be >= 0");
  int64_t batch = x.dims()[0], classes = x.dims()[1];
  auto gen = random::generator_for(ctx.node());
  Tensor y(dt, {batch, samples});
  std::vector<double> w(static_cast<size_t>(classes));
  for (int64_t b = 0; b < batch; ++b) {
    double mx = -INFINITY;
    for (int64_t c = 0; c < classes; ++c) mx = std::max(mx, element_as_double(x, b * classes + c));
    for (int64_t c = 0; c < classes; ++c)
      w[static_cast<size_t>(c)] = std::exp(element_as_double(x, b * classes + c) - mx);
    if (classes == 0) return ctx.error("Multinomial needs at least one class");
    std::discrete_distribution<int64_t> dist(w.begin(), w.end());
    for (int64_t s = 0; s < samples; ++s) random::store(y, b * samples + s, static_cast<double>(dist(gen)));
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_multinomial(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<SymShape> s;
  if (x.shape && x.shape->size() == 2) s = SymShape{(*x.shape)[0], dim(ctx.node().attr_int("sample_size", 1))};
  ctx.output(0) = TypeInfo::tensor(random::dtype_attr(ctx.node(), DataType::kInt32), s);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_RANDOM_OP(Multinomial, "", "Multinomial", (std::vector<int>{7, 22}), eval_multinomial);
ONNXTRIM_REGISTER_INFER(Multinomial, "", "Multinomial", infer_multinomial);
ONNXTRIM_REGISTER_TYPES(Multinomial, "", "Multinomial", "T1", {{"T1", kFloatTypes}});

}  // namespace onnxtrim::ops
