// ReduceLogSum: log of the sum over the given axes (keepdims, noop_with_empty_axes; axes as an
// attribute before opset 18, as an input from then on).
#include <cmath>
#include <limits>

#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_reduce_log_sum(KernelContext& ctx) {
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
        
        for (int64_t o : offs) {
          double v = static_cast<double>(static_cast<compute_t<T>>(p[o]));
          acc += v;
        }
        return T(static_cast<compute_t<T>>(std::log(acc)));
      }
    };
    reduce::for_each_group(x.dims(), plan, [&](int64_t g, const std::vector<int64_t>& offs) { q[g] = one(offs); });
  });
  if (!ok) return ctx.error("ReduceLogSum does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_reduce_log_sum(InferContext& ctx) { return reduce::infer(ctx, DataType::kUndefined); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ReduceLogSum, "", "ReduceLogSum", (std::vector<int>{1, 11, 13, 18}), eval_reduce_log_sum);
ONNXTRIM_REGISTER_INFER(ReduceLogSum, "", "ReduceLogSum", infer_reduce_log_sum);
ONNXTRIM_REGISTER_TYPES(ReduceLogSum, "", "ReduceLogSum", "T axes",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kUint32, ir::DataType::kUint64})}, {"axes", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
