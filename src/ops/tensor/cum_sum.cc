// CumSum: running sums along an axis (exclusive and reverse variants); integers wrap.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_cum_sum(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axis = normalize_axis(to_int64_vector(ctx.input(1)).at(0), x.rank());
  if (!axis) return ctx.error("CumSum axis out of range");
  bool exclusive = ctx.node().attr_int("exclusive", 0) != 0, reverse = ctx.node().attr_int("reverse", 0) != 0;
  int64_t n = x.dims()[static_cast<size_t>(*axis)];
  int64_t outer = numel_of(Dims(x.dims().begin(), x.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(x.dims().begin() + *axis + 1, x.dims().end()));
  Tensor y(x.dtype(), x.dims());
  bool ok = dispatch(x.dtype(), kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    T* q = y.numel() ? y.mutable_data<T>() : nullptr;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T acc = T(0);
        for (int64_t k = 0; k < n; ++k) {
          int64_t kk = reverse ? n - 1 - k : k;
          int64_t off = (o * n + kk) * inner + i;
          T next;
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            using U = std::make_unsigned_t<T>;
            next = static_cast<T>(static_cast<U>(acc) + static_cast<U>(p[off]));
          } else {
            next = T(static_cast<compute_t<T>>(acc) + static_cast<compute_t<T>>(p[off]));
          }
          q[off] = exclusive ? acc : next;
          acc = next;
        }
      }
  });
  if (!ok) return ctx.error("CumSum does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_cum_sum(InferContext& ctx) {
  propagate_same(ctx);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(CumSum, "", "CumSum", (std::vector<int>{11, 14}), eval_cum_sum);
ONNXTRIM_REGISTER_INFER(CumSum, "", "CumSum", infer_cum_sum);
ONNXTRIM_REGISTER_TYPES(CumSum, "", "CumSum", "T T2",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kUint32, ir::DataType::kUint64})}, {"T2", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
