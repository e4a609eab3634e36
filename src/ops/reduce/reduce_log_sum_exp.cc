// ReduceLogSumExp: log of the sum of exponentials (stable) over the given axes (keepdims, noop_with_empty_axes; axes as an
// attribute before opset 18, as an input from then on).
#include <cmath>
#include <limits>

#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_reduce_log_sum_exp(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  reduce::Plan plan;
  OT_RETURN_IF_ERROR(reduce::plan(ctx, x.dims(), &plan));
  Tensor y(x.dtype(), plan.out_dims);
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    T* q = y.numel() ? y.mutable_data<T>() : nullptr;
    auto one = [&](const std::vector<int64_t>& offs) -> T {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        (void)offs; (void)p; return T(0);
      } else {
        double acc = 0.0;
        size_t count = offs.size();
        (void)count;
        double m = -INFINITY; for (int64_t o : offs) m = std::max(m, static_cast<double>(static_cast<compute_t<T>>(p[o]))); if (std::isinf(m)) m = 0;
        for (int64_t o : offs) {
          double v = static_cast<double>(static_cast<compute_t<T>>(p[o]));
          acc += std::exp(v - m);
        }
        return T(static_cast<compute_t<T>>(std::log(acc) + m));
      }
    };
    reduce::for_each_group(x.dims(), plan, [&](int64_t g, const std::vector<int64_t>& offs) { q[g] = one(offs); });
  });
  if (!ok) return ctx.error("ReduceLogSumExp does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_reduce_log_sum_exp(InferContext& ctx) { return reduce::infer(ctx, DataType::kUndefined); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ReduceLogSumExp, "", "ReduceLogSumExp", (std::vector<int>{1, 11, 13, 18}), eval_reduce_log_sum_exp);
ONNXTRIM_REGISTER_INFER(ReduceLogSumExp, "", "ReduceLogSumExp", infer_reduce_log_sum_exp);
ONNXTRIM_REGISTER_TYPES(ReduceLogSumExp, "", "ReduceLogSumExp", "T axes",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kUint32, ir::DataType::kUint64})}, {"axes", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
