// RandomNormal: a tensor of the given shape drawn from N(mean, scale^2).
#include "ops/random/random_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_random_normal(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!n.attr("shape")) return ctx.error("RandomNormal needs a shape attribute");
  DataType dt = random::dtype_attr(n, DataType::kFloat);
  std::vector<int64_t> dims = n.attr_ints("shape");
  for (int64_t d : dims)
    if (d < 0) return ctx.error("RandomNormal shape has a negative dim");
  std::normal_distribution<double> dist(n.attr_float("mean", 0.0f), n.attr_float("scale", 1.0f));
  if (!ir::dtype_is_float(dt)) return ctx.error("RandomNormal generates float types, not " + std::string(ir::dtype_name(dt)));
  auto gen = random::generator_for(n);
  Tensor y(dt, dims);
  for (int64_t i = 0; i < y.numel(); ++i)
    if (!random::store(y, i, dist(gen))) return ctx.unsupported("RandomNormal cannot write " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_random_normal(InferContext& ctx) {
  SymShape s;
  for (int64_t d : ctx.node().attr_ints("shape")) s.push_back(dim(d));
  ctx.output(0) = TypeInfo::tensor(random::dtype_attr(ctx.node(), DataType::kFloat), s);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_RANDOM_OP(RandomNormal, "", "RandomNormal", (std::vector<int>{1, 22}), eval_random_normal);
ONNXTRIM_REGISTER_INFER(RandomNormal, "", "RandomNormal", infer_random_normal);

}  // namespace onnxtrim::ops
