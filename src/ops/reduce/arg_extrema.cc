// ArgMax and ArgMin: index of the largest (smallest) element along an axis (the first
// occurrence, or the last with select_last_index); int64 output. What they share: the plan and
// the walk of the reductions (reduce_util.h), the shape rule with an int64 output, versions and
// types. They differ in the comparison.
#include <cmath>
#include <functional>

#include "ops/infer.h"
#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
// Better is std::greater (ArgMax) or std::less (ArgMin): whether v replaces the best so far.
template <typename Better>
Status eval_arg_extremum(KernelContext& ctx) {
  const std::string& op = ctx.node().op_type;
  const Tensor& x = ctx.input(0);
  reduce::Plan plan;
  OT_RETURN_IF_ERROR(reduce::plan(ctx, x.dims(), &plan));
  if (plan.group_size == 0) return ctx.error(op + " over an empty axis");
  bool last = ctx.node().attr_int("select_last_index", 0) != 0;
  Tensor y(DataType::kInt64, plan.out_dims);
  bool ok = dispatch(x.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    int64_t* q = y.numel() ? y.mutable_data<int64_t>() : nullptr;
    reduce::for_each_group(x.dims(), plan, [&](int64_t g, const std::vector<int64_t>& offs) {
      int64_t best = 0;
      auto bv = static_cast<compute_t<T>>(p[offs[0]]);
      for (size_t k = 1; k < offs.size(); ++k) {
        auto v = static_cast<compute_t<T>>(p[offs[k]]);
        if (Better{}(v, bv) || (last && v == bv)) {
          best = static_cast<int64_t>(k);
          bv = v;
        }
      }
      q[g] = best;
    });
  });
  if (!ok) return ctx.error(op + " does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_arg_extremum(InferContext& ctx) { return reduce::infer(ctx, DataType::kInt64); }

// ---- registration (versions from Changelog.md)
// One row: the family's versions, shape rule and types.
OpRegistration arg_extremum_row(const char* op, EvalFn eval) {
  return {.op_type = op,
          .versions = {1, 11, 12, 13},
          .eval = eval,
          .infer = infer_arg_extremum,
          .signature = "T",
          .types = {{"T", kNumericTypes}}};
}
const OpRegistration kArgExtrema[] = {
    arg_extremum_row("ArgMax", eval_arg_extremum<std::greater<>>),
    arg_extremum_row("ArgMin", eval_arg_extremum<std::less<>>),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(ArgExtrema, kArgExtrema);

}  // namespace onnxtrim::ops
