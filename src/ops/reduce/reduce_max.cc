// ReduceMax: largest reduced element (NaN wins) over the given axes (keepdims, noop_with_empty_axes; axes as an
// attribute before opset 18, as an input from then on).
#include <cmath>
#include <limits>

#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_reduce_max(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  reduce::Plan plan;
  OT_RETURN_IF_ERROR(reduce::plan(ctx, x.dims(), &plan));
  Tensor y(x.dtype(), plan.out_dims);
  bool ok = dispatch(x.dtype(), kFloats | kSigned | kUnsigned | kBool, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    T* q = y.numel() ? y.mutable_data<T>() : nullptr;
    auto one = [&](const std::vector<int64_t>& offs) -> T {
      if constexpr (std::is_same_v<T, bool>) {
        bool acc = false;  // bool (opset 20): logical or
        for (int64_t o : offs) acc = acc || p[o];
        return acc;
      } else if constexpr (std::is_integral_v<T>) {
        T acc = std::numeric_limits<T>::lowest(); for (int64_t o : offs) acc = std::max(acc, p[o]); return acc;
      } else {
        double acc = -INFINITY;
        size_t count = offs.size();
        (void)count;
        
        for (int64_t o : offs) {
          double v = static_cast<double>(static_cast<compute_t<T>>(p[o]));
          acc = (std::isnan(acc) || std::isnan(v) || v > acc) ? (std::isnan(acc) ? acc : v) : acc;
        }
        return T(static_cast<compute_t<T>>(acc));
      }
    };
    reduce::for_each_group(x.dims(), plan, [&](int64_t g, const std::vector<int64_t>& offs) { q[g] = one(offs); });
  });
  if (!ok) return ctx.error("ReduceMax does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_reduce_max(InferContext& ctx) { return reduce::infer(ctx, DataType::kUndefined); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(ReduceMax, "", "ReduceMax", (std::vector<int>{1, 11, 12, 13, 18, 20}), eval_reduce_max);
ONNXTRIM_REGISTER_INFER(ReduceMax, "", "ReduceMax", infer_reduce_max);
ONNXTRIM_REGISTER_TYPES(ReduceMax, "", "ReduceMax", "T axes",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kBool, ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kInt8, ir::DataType::kUint32, ir::DataType::kUint64, ir::DataType::kUint8})}, {"axes", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
