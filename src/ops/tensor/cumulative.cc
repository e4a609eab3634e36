// CumSum and CumProd: running sums (products) along an axis, with the exclusive and reverse
// variants; integers wrap. What they share: the walk along the axis (outer, n, inner), the
// shape rule (the input's), the types; each is its identity and its step.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
// ints(acc, v): the integer step (as unsigned, wrapping); floats(acc, v) in the compute type.
struct CumSumStep {
  static constexpr int kIdentity = 0;
  template <typename T>
  static T ints(T acc, T v) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(acc) + static_cast<U>(v));
  }
  template <typename C>
  static auto floats(C acc, C v) {
    return acc + v;
  }
};
struct CumProdStep {
  static constexpr int kIdentity = 1;
  template <typename T>
  static T ints(T acc, T v) {
    // At least as wide as unsigned int: no promotion to signed int.
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(acc)) * static_cast<W>(static_cast<U>(v))));
  }
  template <typename C>
  static auto floats(C acc, C v) {
    return acc * v;
  }
};

template <typename Step>
Status eval_cumulative(KernelContext& ctx) {
  const std::string& op = ctx.node().op_type;
  const Tensor& x = ctx.input(0);
  auto axis = normalize_axis(to_int64_vector(ctx.input(1)).at(0), x.rank());
  if (!axis) return ctx.error(op + " axis out of range");
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
        T acc = T(Step::kIdentity);
        for (int64_t k = 0; k < n; ++k) {
          int64_t kk = reverse ? n - 1 - k : k;
          int64_t off = (o * n + kk) * inner + i;
          T next;
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            next = Step::ints(acc, p[off]);
          } else {
            next = T(Step::floats(static_cast<compute_t<T>>(acc), static_cast<compute_t<T>>(p[off])));
          }
          q[off] = exclusive ? acc : next;
          acc = next;
        }
      }
  });
  if (!ok) return ctx.error(op + " does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
constexpr uint64_t kCumulativeTypes =
    kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kUint32, ir::DataType::kUint64});
constexpr uint64_t kCumulativeAxisTypes = type_bits({ir::DataType::kInt32, ir::DataType::kInt64});
// One row: the family's shape rule and types.
OpRegistration cumulative_row(const char* op, std::vector<int> versions, EvalFn eval) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer_same,
          .signature = "T T2",
          .types = {{"T", kCumulativeTypes}, {"T2", kCumulativeAxisTypes}}};
}
const OpRegistration kCumulative[] = {
    cumulative_row("CumSum", {11, 14}, eval_cumulative<CumSumStep>),
    cumulative_row("CumProd", {26}, eval_cumulative<CumProdStep>),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Cumulative, kCumulative);

}  // namespace onnxtrim::ops
