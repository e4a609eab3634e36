// The Reduce* ops: ReduceSum, ReduceMean, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare,
// ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMin over the given axes (keepdims,
// noop_with_empty_axes; axes as an attribute before opset 13 for ReduceSum and 18 for the rest,
// as an input from then on). What they share: the plan of groups (reduce::plan), the walk over
// every (output element, reduced elements) group, the shape rule (reduce::infer) and the
// output's element type (the input's). Each op is one accumulator: float types accumulate in
// double and round once at the end; integer types (where the op takes them) in their own type,
// wrapping around as two's complement; bool (ReduceMax/ReduceMin from opset 20) as logic.
#include <cmath>
#include <limits>

#include "ops/infer.h"
#include "ops/reduce/reduce_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
using ReduceOffsets = std::vector<int64_t>;

// An element of a float tensor as the double the accumulators add.
template <typename T>
double reduce_as_double(const T* p, int64_t o) {
  return static_cast<double>(static_cast<compute_t<T>>(p[o]));
}
// acc = step(acc, x) over the group's elements, from init, in double.
template <typename T, typename Step>
double reduce_fold(const T* p, const ReduceOffsets& offs, double init, Step step) {
  double acc = init;
  for (int64_t o : offs) acc = step(acc, reduce_as_double(p, o));
  return acc;
}
// Integer sum wrapping around (added as unsigned).
template <typename T>
T reduce_wrapping_sum(const T* p, const ReduceOffsets& offs) {
  using U = std::make_unsigned_t<T>;
  T acc = T(0);
  for (int64_t o : offs) acc = static_cast<T>(static_cast<U>(acc) + static_cast<U>(p[o]));
  return acc;
}

// The accumulators. kTakes: the element types the kernel runs (kernel_util.h's dispatch sets);
// floats(p, offs) the float result in double; ints(p, offs) the integer result; logic(p, offs)
// the bool result.
struct ReduceSumAcc {
  static constexpr unsigned kTakes = kFloats | kSigned | kUnsigned;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return reduce_fold(p, offs, 0.0, [](double acc, double v) { return acc + v; });
  }
  template <typename T>
  static T ints(const T* p, const ReduceOffsets& offs) {
    return reduce_wrapping_sum(p, offs);
  }
};
struct ReduceMeanAcc {
  static constexpr unsigned kTakes = kFloats | kSigned | kUnsigned;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    double acc = reduce_fold(p, offs, 0.0, [](double acc, double v) { return acc + v; });
    return acc / static_cast<double>(offs.size());
  }
  template <typename T>
  static T ints(const T* p, const ReduceOffsets& offs) {
    T acc = reduce_wrapping_sum(p, offs);
    return offs.empty() ? T(0) : static_cast<T>(acc / static_cast<T>(offs.size()));
  }
};
struct ReduceProdAcc {
  static constexpr unsigned kTakes = kFloats | kSigned | kUnsigned;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return reduce_fold(p, offs, 1.0, [](double acc, double v) { return acc * v; });
  }
  template <typename T>
  static T ints(const T* p, const ReduceOffsets& offs) {
    // Multiplied as unsigned, at least as wide as unsigned int (no promotion to signed int).
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    U acc = 1;
    for (int64_t o : offs) acc = static_cast<U>(static_cast<W>(acc) * static_cast<W>(static_cast<U>(p[o])));
    return static_cast<T>(acc);
  }
};
struct ReduceL1Acc {
  static constexpr unsigned kTakes = kFloats | kSigned | kUnsigned;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return reduce_fold(p, offs, 0.0, [](double acc, double v) { return acc + std::fabs(v); });
  }
  template <typename T>
  static T ints(const T* p, const ReduceOffsets& offs) {
    T acc = T(0);
    for (int64_t o : offs) acc = static_cast<T>(acc + (p[o] < 0 ? static_cast<T>(-p[o]) : p[o]));
    return acc;
  }
};
struct ReduceSumSquareAcc {
  static constexpr unsigned kTakes = kFloats | kSigned | kUnsigned;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return reduce_fold(p, offs, 0.0, [](double acc, double v) { return acc + v * v; });
  }
  template <typename T>
  static T ints(const T* p, const ReduceOffsets& offs) {
    T acc = T(0);
    for (int64_t o : offs) acc = static_cast<T>(acc + static_cast<T>(p[o] * p[o]));
    return acc;
  }
};
struct ReduceL2Acc {
  static constexpr unsigned kTakes = kFloats;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return std::sqrt(reduce_fold(p, offs, 0.0, [](double acc, double v) { return acc + v * v; }));
  }
};
struct ReduceLogSumAcc {
  static constexpr unsigned kTakes = kFloats;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return std::log(reduce_fold(p, offs, 0.0, [](double acc, double v) { return acc + v; }));
  }
};
struct ReduceLogSumExpAcc {
  static constexpr unsigned kTakes = kFloats;
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    // Shifted by the largest element (0 when that is infinite) so that exp does not overflow.
    double m = -INFINITY;
    for (int64_t o : offs) m = std::max(m, reduce_as_double(p, o));
    if (std::isinf(m)) m = 0;
    return std::log(reduce_fold(p, offs, 0.0, [m](double acc, double v) { return acc + std::exp(v - m); })) + m;
  }
};
// ReduceMax (kMax) and ReduceMin: a NaN wins; bool is logical or (and).
template <bool kMax>
struct ReduceExtremumAcc {
  static constexpr unsigned kTakes = kFloats | kSigned | kUnsigned | kBool;
  static bool better(double v, double acc) { return kMax ? v > acc : v < acc; }
  template <typename T>
  static double floats(const T* p, const ReduceOffsets& offs) {
    return reduce_fold(p, offs, kMax ? -INFINITY : INFINITY, [](double acc, double v) {
      return (std::isnan(acc) || std::isnan(v) || better(v, acc)) ? (std::isnan(acc) ? acc : v) : acc;
    });
  }
  template <typename T>
  static T ints(const T* p, const ReduceOffsets& offs) {
    T acc = kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    for (int64_t o : offs) acc = kMax ? std::max(acc, p[o]) : std::min(acc, p[o]);
    return acc;
  }
  static bool logic(const bool* p, const ReduceOffsets& offs) {
    bool acc = !kMax;
    for (int64_t o : offs) acc = kMax ? (acc || p[o]) : (acc && p[o]);
    return acc;
  }
};

template <typename Acc>
Status eval_reduction(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  reduce::Plan plan;
  OT_RETURN_IF_ERROR(reduce::plan(ctx, x.dims(), &plan));
  Tensor y(x.dtype(), plan.out_dims);
  bool ok = dispatch(x.dtype(), Acc::kTakes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    T* q = y.numel() ? y.mutable_data<T>() : nullptr;
    // Only the branches of the types in Acc::kTakes run.
    reduce::for_each_group(x.dims(), plan, [&](int64_t g, const ReduceOffsets& offs) {
      if constexpr (std::is_same_v<T, bool>) {
        if constexpr ((Acc::kTakes & kBool) != 0) q[g] = Acc::logic(p, offs);
      } else if constexpr (std::is_integral_v<T>) {
        if constexpr ((Acc::kTakes & (kSigned | kUnsigned)) != 0) q[g] = Acc::template ints<T>(p, offs);
      } else {
        q[g] = T(static_cast<compute_t<T>>(Acc::template floats<T>(p, offs)));
      }
    });
  });
  if (!ok) return ctx.error(ctx.node().op_type + " does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_reduction(InferContext& ctx) { return reduce::infer(ctx, DataType::kUndefined); }

// ---- registration (versions from Changelog.md)
constexpr uint64_t kReduceTypes =
    kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kUint32, ir::DataType::kUint64});
// ReduceMax/ReduceMin also take bool (opset 20) and 8-bit integers (opset 12).
constexpr uint64_t kReduceExtremumTypes =
    kReduceTypes | type_bits({ir::DataType::kBool, ir::DataType::kInt8, ir::DataType::kUint8});
constexpr uint64_t kReduceAxesTypes = type_bits({ir::DataType::kInt64});

// One row: the shape rule, the signature and the axes' type are the family's.
OpRegistration reduction_row(const char* op, std::vector<int> versions, EvalFn eval, uint64_t types) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer_reduction,
          .signature = "T axes",
          .types = {{"T", types}, {"axes", kReduceAxesTypes}}};
}
const OpRegistration kReductions[] = {
    reduction_row("ReduceSum", {1, 11, 13}, eval_reduction<ReduceSumAcc>, kReduceTypes),
    reduction_row("ReduceMean", {1, 11, 13, 18}, eval_reduction<ReduceMeanAcc>, kReduceTypes),
    reduction_row("ReduceProd", {1, 11, 13, 18}, eval_reduction<ReduceProdAcc>, kReduceTypes),
    reduction_row("ReduceL1", {1, 11, 13, 18}, eval_reduction<ReduceL1Acc>, kReduceTypes),
    reduction_row("ReduceL2", {1, 11, 13, 18}, eval_reduction<ReduceL2Acc>, kReduceTypes),
    reduction_row("ReduceSumSquare", {1, 11, 13, 18}, eval_reduction<ReduceSumSquareAcc>, kReduceTypes),
    reduction_row("ReduceLogSum", {1, 11, 13, 18}, eval_reduction<ReduceLogSumAcc>, kReduceTypes),
    reduction_row("ReduceLogSumExp", {1, 11, 13, 18}, eval_reduction<ReduceLogSumExpAcc>, kReduceTypes),
    reduction_row("ReduceMax", {1, 11, 12, 13, 18, 20}, eval_reduction<ReduceExtremumAcc<true>>, kReduceExtremumTypes),
    reduction_row("ReduceMin", {1, 11, 12, 13, 18, 20}, eval_reduction<ReduceExtremumAcc<false>>, kReduceExtremumTypes),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Reductions, kReductions);

}  // namespace onnxtrim::ops
