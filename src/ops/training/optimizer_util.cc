#include "ops/training/optimizer_util.h"

#include <vector>

namespace onnxtrim::ops::training {

namespace {
// Input index of group `kind` (0 = X, 1 = G, 2.. = states) of tensor j.
size_t input_index(size_t n, size_t kind, size_t j) { return 2 + kind * n + j; }
// The input an output group mirrors: output group 0 is X, group g >= 1 is state g + 1.
size_t mirrored_kind(size_t out_group) { return out_group == 0 ? 0 : out_group + 1; }
}  // namespace

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

Status infer_optimizer(InferContext& ctx, size_t kinds) {
  if (ctx.num_inputs() < 2 + kinds || (ctx.num_inputs() - 2) % kinds != 0) return Status::ok();
  size_t n = (ctx.num_inputs() - 2) / kinds;
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    size_t g = o / n, j = o % n;
    if (g + 1 >= kinds || !ctx.has_output(o)) continue;
    TypeInfo info = ctx.input(input_index(n, mirrored_kind(g), j));
    info.values.reset();
    ctx.output(o) = std::move(info);
  }
  return Status::ok();
}

}  // namespace onnxtrim::ops::training
