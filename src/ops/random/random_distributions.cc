// RandomNormal, RandomUniform and their *Like forms: a tensor drawn from N(mean, scale^2) or
// uniformly from [low, high). RandomNormal/RandomUniform take their shape from the `shape`
// attribute (dtype default float); the *Like forms take the input's shape (and its dtype unless
// dtype is given). What the four share: the generator (random::generator_for: seed, or the
// evaluator's stream), one draw per element in order, float types only, never folded; each is a
// distribution and a source of shape.
#include "ops/random/random_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
struct RandomNormalDist {
  static std::normal_distribution<double> make(const ir::Node& n) {
    return std::normal_distribution<double>(n.attr_float("mean", 0.0f), n.attr_float("scale", 1.0f));
  }
};
struct RandomUniformDist {
  static std::uniform_real_distribution<double> make(const ir::Node& n) {
    return std::uniform_real_distribution<double>(n.attr_float("low", 0.0f), n.attr_float("high", 1.0f));
  }
};

// Like: the shape and default dtype from input 0, else from the attributes.
template <typename Dist, bool Like>
Status eval_random_distribution(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  const std::string& op = n.op_type;
  DataType dt;
  std::vector<int64_t> dims;
  if constexpr (Like) {
    if (!ctx.has_input(0)) return ctx.error(op + " needs an input");
    dt = random::dtype_attr(n, ctx.input(0).dtype());
    dims = ctx.input(0).dims();
  } else {
    if (!n.attr("shape")) return ctx.error(op + " needs a shape attribute");
    dt = random::dtype_attr(n, DataType::kFloat);
    dims = n.attr_ints("shape");
    for (int64_t d : dims)
      if (d < 0) return ctx.error(op + " shape has a negative dim");
  }
  auto dist = Dist::make(n);
  if (!ir::dtype_is_float(dt)) return ctx.error(op + " generates float types, not " + std::string(ir::dtype_name(dt)));
  auto gen = random::generator_for(n);
  Tensor y(dt, dims);
  for (int64_t i = 0; i < y.numel(); ++i)
    if (!random::store(y, i, dist(gen)))
      return ctx.unsupported(op + " cannot write " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_random_by_shape(InferContext& ctx) {
  SymShape s;
  for (int64_t d : ctx.node().attr_ints("shape")) s.push_back(dim(d));
  ctx.output(0) = TypeInfo::tensor(random::dtype_attr(ctx.node(), DataType::kFloat), s);
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
constexpr uint64_t kRandomLikeTypes =
    kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString});
// One row: versions 1 and 22, never folded; only the *Like forms have an input whose type is checked.
OpRegistration random_distribution_row(const char* op, EvalFn eval, bool like) {
  OpRegistration r{.op_type = op,
                   .versions = {1, 22},
                   .eval = eval,
                   .infer = like ? random::infer_like : infer_random_by_shape,
                   .deterministic = false};
  if (like) {
    r.signature = "T1";
    r.types = {{"T1", kRandomLikeTypes}};
  }
  return r;
}
const OpRegistration kRandomDistributions[] = {
    random_distribution_row("RandomNormal", eval_random_distribution<RandomNormalDist, false>, false),
    random_distribution_row("RandomUniform", eval_random_distribution<RandomUniformDist, false>, false),
    random_distribution_row("RandomNormalLike", eval_random_distribution<RandomNormalDist, true>, true),
    random_distribution_row("RandomUniformLike", eval_random_distribution<RandomUniformDist, true>, true),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(RandomDistributions, kRandomDistributions);

}  // namespace onnxtrim::ops
