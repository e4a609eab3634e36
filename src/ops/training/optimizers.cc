// The optimizers of ai.onnx.preview.training: Adagrad, Adam, Momentum. What the three share:
// inputs R (learning rate), T (update count), then `kinds` groups of n tensors each (the
// optimized tensors, their gradients, then one group per state); outputs the new tensors
// followed by one group per new state, each of the type and shape of the input it updates. Each
// element is updated on its own, in double, by the op's step. One row of the table below is one
// op: its kernel (the step, from the op's attributes) and its group count.
//
//   Adagrad: r = R / (1 + T * decay_factor);  g = norm_coefficient * X + G;  H' = H + g * g;
//            X' = X - r * g / (sqrt(H') + epsilon)
//   Adam:    g = norm_coefficient * X + G;  V' = alpha V + (1 - alpha) g;
//            H' = beta H + (1 - beta) g^2;  R' = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R;
//            X' = (1 - norm_coefficient_post) (X - R' V' / (sqrt(H') + epsilon))
//   Momentum: g = norm_coefficient * X + G;  b = T > 0 ? beta : 1;  V' = alpha V + b g;
//            standard: X' = X - R V';  nesterov: X' = X - R (g + alpha V')
#include <cmath>
#include <functional>
#include <vector>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace training {
namespace {

// ---- what the family shares
// Input index of group `kind` (0 = X, 1 = G, 2.. = states) of tensor j.
size_t input_index(size_t n, size_t kind, size_t j) { return 2 + kind * n + j; }
// The input an output group mirrors: output group 0 is X, group g >= 1 is state g + 1.
size_t mirrored_kind(size_t out_group) { return out_group == 0 ? 0 : out_group + 1; }

// step(R, T, in[kinds], out[kinds - 1]) computes one element.
using OptimizerStep = std::function<void(double, int64_t, const double*, double*)>;

Status run_optimizer(KernelContext& ctx, size_t kinds, const OptimizerStep& step) {
  const std::string& op = ctx.node().op_type;
  if (ctx.num_inputs() < 2 + kinds || (ctx.num_inputs() - 2) % kinds != 0)
    return ctx.error(op + " takes R, T and " + std::to_string(kinds) + " groups of equal size");
  size_t n = (ctx.num_inputs() - 2) / kinds;
  if (ctx.num_outputs() > (kinds - 1) * n) return ctx.error(op + " has more outputs than updated tensors and states");
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (!ctx.has_input(i)) return ctx.error(op + " input " + std::to_string(i) + " is missing");
  const Tensor& r = ctx.input(0);
  const Tensor& t = ctx.input(1);
  if (r.numel() != 1 || t.numel() != 1 || t.dtype() != DataType::kInt64)
    return ctx.error(op + " needs a scalar R and a scalar int64 T");
  double rate = element_as_double(r, 0);
  int64_t count = t.data<int64_t>()[0];
  std::vector<double> in(kinds), out(kinds - 1);
  for (size_t j = 0; j < n; ++j) {
    const Tensor& x = ctx.input(input_index(n, 0, j));
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble)
      return ctx.error(op + " optimizes float or double tensors, not " + std::string(ir::dtype_name(x.dtype())));
    for (size_t k = 1; k < kinds; ++k) {
      const Tensor& o = ctx.input(input_index(n, k, j));
      if (o.dims() != x.dims() || o.dtype() != x.dtype())
        return ctx.error(op + ": tensor " + std::to_string(j) + " and its gradient/state differ in shape or type");
    }
    std::vector<Tensor> results(kinds - 1, Tensor(x.dtype(), x.dims()));
    for (int64_t e = 0; e < x.numel(); ++e) {
      for (size_t k = 0; k < kinds; ++k) in[k] = element_as_double(ctx.input(input_index(n, k, j)), e);
      step(rate, count, in.data(), out.data());
      for (size_t g = 0; g + 1 < kinds; ++g) {
        if (x.dtype() == DataType::kFloat) results[g].mutable_data<float>()[e] = static_cast<float>(out[g]);
        else results[g].mutable_data<double>()[e] = out[g];
      }
    }
    for (size_t g = 0; g + 1 < kinds; ++g)
      if (ctx.wants_output(g * n + j)) ctx.set_output(g * n + j, std::move(results[g]));
  }
  return Status::ok();
}

// ---- shape inference: output j of group g has the type of input 2 + g' * n + j, where g' is X
// (g = 0) or the state group the output updates.
template <size_t Kinds>
Status infer_optimizer(InferContext& ctx) {
  if (ctx.num_inputs() < 2 + Kinds || (ctx.num_inputs() - 2) % Kinds != 0) return Status::ok();
  size_t n = (ctx.num_inputs() - 2) / Kinds;
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    size_t g = o / n, j = o % n;
    if (g + 1 >= Kinds || !ctx.has_output(o)) continue;
    TypeInfo info = ctx.input(input_index(n, mirrored_kind(g), j));
    info.values.reset();
    ctx.output(o) = std::move(info);
  }
  return Status::ok();
}

// ---- evaluate: each op's step
Status eval_adagrad(KernelContext& ctx) {
  double decay = ctx.node().attr_float("decay_factor", 0.0f);
  double eps = ctx.node().attr_float("epsilon", 0.0f);
  double norm = ctx.node().attr_float("norm_coefficient", 0.0f);
  return run_optimizer(ctx, 3, [&](double R, int64_t T, const double* in, double* out) {
    double r = R / (1.0 + static_cast<double>(T) * decay);
    double g = norm * in[0] + in[1];
    double h = in[2] + g * g;
    out[0] = in[0] - r * g / (std::sqrt(h) + eps);
    out[1] = h;
  });
}

Status eval_adam(KernelContext& ctx) {
  double alpha = ctx.node().attr_float("alpha", 0.9f);
  double beta = ctx.node().attr_float("beta", 0.999f);
  double eps = ctx.node().attr_float("epsilon", 0.0f);
  double norm = ctx.node().attr_float("norm_coefficient", 0.0f);
  double post = ctx.node().attr_float("norm_coefficient_post", 0.0f);
  return run_optimizer(ctx, 4, [&](double R, int64_t T, const double* in, double* out) {
    double g = norm * in[0] + in[1];
    double v = alpha * in[2] + (1.0 - alpha) * g;
    double h = beta * in[3] + (1.0 - beta) * g * g;
    double t = static_cast<double>(T);
    double r = T > 0 ? R * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t)) : R;
    double x = in[0] - r * v / (std::sqrt(h) + eps);
    out[0] = (1.0 - post) * x;
    out[1] = v;
    out[2] = h;
  });
}

Status eval_momentum(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!n.attr("alpha") || !n.attr("beta") || !n.attr("mode") || !n.attr("norm_coefficient"))
    return ctx.error("Momentum needs the attributes alpha, beta, mode and norm_coefficient");
  double alpha = n.attr_float("alpha", 0.0f);
  double beta = n.attr_float("beta", 0.0f);
  double norm = n.attr_float("norm_coefficient", 0.0f);
  std::string mode = n.attr_string("mode", "");
  if (mode != "standard" && mode != "nesterov")
    return ctx.error("Momentum mode must be standard or nesterov, not '" + mode + "'");
  bool nesterov = mode == "nesterov";
  return run_optimizer(ctx, 3, [&](double R, int64_t T, const double* in, double* out) {
    double g = norm * in[0] + in[1];
    double b = T > 0 ? beta : 1.0;
    double v = alpha * in[2] + b * g;
    out[0] = nesterov ? in[0] - R * (g + alpha * v) : in[0] - R * v;
    out[1] = v;
  });
}

// ---- registration (versions from Changelog.md): the op, its step and its group count.
const OpRegistration kOptimizers[] = {
    {.op_type = "Adagrad",
     .versions = {1},
     .eval = eval_adagrad,
     .infer = infer_optimizer<3>,
     .domain = "ai.onnx.preview.training"},
    {.op_type = "Adam",
     .versions = {1},
     .eval = eval_adam,
     .infer = infer_optimizer<4>,
     .domain = "ai.onnx.preview.training"},
    {.op_type = "Momentum",
     .versions = {1},
     .eval = eval_momentum,
     .infer = infer_optimizer<3>,
     .domain = "ai.onnx.preview.training"},
};

}  // namespace
}  // namespace training

ONNXTRIM_REGISTER_OPS(Optimizers, training::kOptimizers);

}  // namespace onnxtrim::ops
