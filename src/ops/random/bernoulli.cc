// Bernoulli: y[i] = 1 with probability x[i], else 0, in `dtype` (default: x's type).
#include "ops/random/random_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_bernoulli(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Bernoulli needs an input");
  const Tensor& x = ctx.input(0);
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("Bernoulli takes probabilities of a float type");
  DataType dt = random::dtype_attr(ctx.node(), x.dtype());
  auto gen = random::generator_for(ctx.node());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Tensor y(dt, x.dims());
  for (int64_t i = 0; i < x.numel(); ++i) {
    double p = element_as_double(x, i);
    if (!(p >= 0.0 && p <= 1.0)) return ctx.error("Bernoulli probability " + std::to_string(p) + " is outside [0, 1]");
    if (!random::store(y, i, u(gen) < p ? 1.0 : 0.0))
      return ctx.unsupported("Bernoulli cannot write " + std::string(ir::dtype_name(dt)));
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: random::infer_like (input 0's shape, of type dtype)

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_RANDOM_OP(Bernoulli, "", "Bernoulli", (std::vector<int>{15, 22}), eval_bernoulli);
ONNXTRIM_REGISTER_INFER(Bernoulli, "", "Bernoulli", random::infer_like);
ONNXTRIM_REGISTER_TYPES(Bernoulli, "", "Bernoulli", "T1", {{"T1", kFloatTypes}});

}  // namespace onnxtrim::ops
