// ReduceSum: sum of the reduced elements over the given axes (keepdims, noop_with_empty_axes; axes as an
// attribute before opset 13, as an input from then on).
#include <cmath>
#include <limits>

#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_reduce_sum(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  reduce::Plan plan;
  OT_RETURN_IF_ERROR(reduce::plan(ctx, x.dims(), &plan));
  Tensor y(x.dtype(), plan.out_dims);
  bool ok = dispatch(x.dtype(), kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    T* q = y.numel() ? y.mutable_data<T>() : nullptr;
    auto one = [&](const std::vector<int64_t>& offs) -> T {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        T acc = T(0); for (int64_t o : offs) acc = static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc) + static_cast<std::make_unsigned_t<T>>(p[o])); return acc;
      } else {
        double acc = 0.0;
        size_t count = offs.size();
        (void)count;
        
        for (int64_t o : offs) {
          double v = static_cast<double>(static_cast<compute_t<T>>(p[o]));
          acc += v;
        }
        return T(static_cast<compute_t<T>>(acc));
      }
    };
    reduce::for_each_group(x.dims(), plan, [&](int64_t g, const std::vector<int64_t>& offs) { q[g] = one(offs); });
  });
  if (!ok) return ctx.error("ReduceSum does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_reduce_sum(InferContext& ctx) { return reduce::infer(ctx, DataType::kUndefined); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ReduceSum, "", "ReduceSum", (std::vector<int>{1, 11, 13}), eval_reduce_sum);
ONNXTRIM_REGISTER_INFER(ReduceSum, "", "ReduceSum", infer_reduce_sum);
ONNXTRIM_REGISTER_TYPES(ReduceSum, "", "ReduceSum", "T axes",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kUint32, ir::DataType::kUint64})}, {"axes", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
