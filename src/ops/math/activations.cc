// The activations with attributes: Celu, Elu, Gelu, HardSigmoid, LeakyRelu, Selu, Shrink (its
// float kernel), Swish, ThresholdedRelu. What they share: one input of a float type and an
// output of its type and shape (infer_same); the node's attributes read once, then each element
// computed in double and rounded to the type (unary_float). Each op's kernel below is its
// formula; one row of the table is its registration. Shrink and Swish are not declared
// element-wise (passes do not treat them as such), and Shrink's type constraint is the spec's
// (integers too), beyond what its kernel takes.
#include <cmath>

#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_celu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx,
                     [&](double x) { return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1.0)); });
}

Status eval_elu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return x >= 0 ? x : alpha * (std::exp(x) - 1.0); });
}

Status eval_gelu(KernelContext& ctx) {
  bool tanh_approx = ctx.node().attr_string("approximate", "none") == "tanh";
  return unary_float(ctx, [&](double x) {
    if (tanh_approx) return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  });
}

Status eval_hard_sigmoid(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 0.2f);
  double beta = ctx.node().attr_float("beta", 0.5f);
  return unary_float(ctx, [&](double x) { return std::max(0.0, std::min(1.0, alpha * x + beta)); });
}

Status eval_leaky_relu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 0.01f);
  return unary_float(ctx, [&](double x) { return x >= 0 ? x : alpha * x; });
}

Status eval_selu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.67326319217681884765625f);
  double gamma = ctx.node().attr_float("gamma", 1.05070102214813232421875f);
  return unary_float(ctx, [&](double x) { return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha); });
}

Status eval_shrink_float(KernelContext& ctx) {
  double bias = ctx.node().attr_float("bias", 0.0f);
  double lambd = ctx.node().attr_float("lambd", 0.5f);
  return unary_float(ctx, [&](double x) { return x < -lambd ? x + bias : (x > lambd ? x - bias : 0.0); });
}

Status eval_swish(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return x / (1.0 + std::exp(-alpha * x)); });
}

Status eval_thresholded_relu(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](double x) { return x > alpha ? x : 0.0; });
}

// ---- registration (versions from Changelog.md)
// A row: input 0 of type T, the output of its shape and type, element-wise.
OpRegistration activation_op(const char* op, std::vector<int> versions, EvalFn eval, uint64_t types = kFloatTypes) {
  return elementwise_op(op, std::move(versions), eval, infer_same, "T", types);
}
// The same op not declared element-wise.
OpRegistration not_elementwise(OpRegistration r) {
  r.properties.clear();
  return r;
}

const uint64_t kShrinkTypes =
    kIntTypes | type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16});
const OpRegistration kActivations[] = {
    activation_op("Celu", {12, 28}, eval_celu),
    activation_op("Elu", {1, 6, 22}, eval_elu),
    activation_op("Gelu", {20}, eval_gelu),
    activation_op("HardSigmoid", {1, 6, 22}, eval_hard_sigmoid),
    activation_op("LeakyRelu", {1, 6, 16}, eval_leaky_relu),
    activation_op("Selu", {1, 6, 22}, eval_selu),
    not_elementwise(activation_op("Shrink", {9}, eval_shrink_float, kShrinkTypes)),
    not_elementwise(activation_op("Swish", {24}, eval_swish)),
    activation_op("ThresholdedRelu", {10, 22}, eval_thresholded_relu),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Activations, kActivations);

}  // namespace onnxtrim::ops
