// ArgMin: index of the smallest element along an axis (first occurrence, or the last with
// select_last_index); int64 output.
#include <cmath>

#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_arg_min(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  reduce::Plan plan;
  OT_RETURN_IF_ERROR(reduce::plan(ctx, x.dims(), &plan));
  if (plan.group_size == 0) return ctx.error("ArgMin over an empty axis");
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
        if (v < bv || (last && v == bv)) {
          best = static_cast<int64_t>(k);
          bv = v;
        }
      }
      q[g] = best;
    });
  });
  if (!ok) return ctx.error("ArgMin does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_arg_min(InferContext& ctx) { return reduce::infer(ctx, DataType::kInt64); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ArgMin, "", "ArgMin", (std::vector<int>{1, 11, 12, 13}), eval_arg_min);
ONNXTRIM_REGISTER_INFER(ArgMin, "", "ArgMin", infer_arg_min);
ONNXTRIM_REGISTER_TYPES(ArgMin, "", "ArgMin", "T", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
