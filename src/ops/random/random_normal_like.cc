// RandomNormalLike: like RandomNormal, with the input's shape (and its dtype unless dtype is given).
#include "ops/random/random_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_random_normal_like(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!ctx.has_input(0)) return ctx.error("RandomNormalLike needs an input");
  DataType dt = random::dtype_attr(n, ctx.input(0).dtype());
  std::vector<int64_t> dims = ctx.input(0).dims();
  std::normal_distribution<double> dist(n.attr_float("mean", 0.0f), n.attr_float("scale", 1.0f));
  if (!ir::dtype_is_float(dt)) return ctx.error("RandomNormalLike generates float types, not " + std::string(ir::dtype_name(dt)));
  auto gen = random::generator_for(n);
  Tensor y(dt, dims);
  for (int64_t i = 0; i < y.numel(); ++i)
    if (!random::store(y, i, dist(gen))) return ctx.unsupported("RandomNormalLike cannot write " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_random_normal_like(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).values.reset();
  ctx.output(0).elem = random::dtype_attr(ctx.node(), ctx.input(0).elem);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_RANDOM_OP(RandomNormalLike, "", "RandomNormalLike", (std::vector<int>{1, 22}), eval_random_normal_like);
ONNXTRIM_REGISTER_INFER(RandomNormalLike, "", "RandomNormalLike", infer_random_normal_like);
ONNXTRIM_REGISTER_TYPES(RandomNormalLike, "", "RandomNormalLike", "T1",
                        {{"T1", kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
