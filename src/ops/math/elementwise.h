// Elementwise kernels shared by the math ops: unary maps and broadcasting binary ops, over the
// dtypes each op allows. Integer arithmetic wraps (two's complement) instead of overflowing.
#pragma once

#include <cmath>
#include <type_traits>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::math {

template <typename T>
inline constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Converts a kernel lambda's result to the storage type (dispatch instantiates every type's
// branch, even those an op never takes at run time).
template <typename T, typename R>
T as(R r) {
  if constexpr (std::is_same_v<T, R>) return r;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(static_cast<float>(r));
  else return static_cast<T>(static_cast<compute_t<R>>(r));
}

// y = f(x) elementwise, same dtype; `set` lists the dtypes the op accepts.
template <typename F>
Status unary(KernelContext& ctx, unsigned set, F&& f) {
  if (!ctx.has_input(0)) return ctx.error(ctx.node().op_type + " needs an input");
  const Tensor& x = ctx.input(0);
  Tensor y(x.dtype(), x.dims());
  bool ok = dispatch(x.dtype(), set, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x.data<T>();
    T* py = y.numel() ? y.mutable_data<T>() : nullptr;
    for (int64_t i = 0; i < x.numel(); ++i) py[i] = as<T>(f(px[i]));
  });
  if (!ok) return ctx.error(ctx.node().op_type + " does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// Float-only unary op computed in (at least) float: f takes and returns double.
template <typename F>
Status unary_float(KernelContext& ctx, F&& f) {
  return unary(ctx, kFloats, [&](auto v) {
    using T = decltype(v);
    return T(static_cast<compute_t<T>>(f(static_cast<double>(static_cast<compute_t<T>>(v)))));
  });
}

// z = f(a, b) with multidirectional broadcasting; inputs share a dtype; output dtype `out`
// (kUndefined: the input's). f receives two T and returns the output storage type.
template <typename Out, typename F>
Status binary_to(KernelContext& ctx, unsigned set, DataType out, F&& f) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error(ctx.node().op_type + " needs two inputs");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != b.dtype()) return ctx.error(ctx.node().op_type + " inputs have different types");
  auto dims = broadcast_shapes(a.dims(), b.dims());
  if (!dims) return ctx.error(ctx.node().op_type + " input shapes cannot be broadcast");
  bool ok = dispatch(a.dtype(), set, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<Out, void>) {
      ctx.set_output(0, broadcast_binary<T, T>(a, b, *dims, a.dtype(), [&](T x, T y) { return as<T>(f(x, y)); }));
    } else {
      ctx.set_output(0, broadcast_binary<T, Out>(a, b, *dims, out, [&](T x, T y) { return as<Out>(f(x, y)); }));
    }
  });
  if (!ok) return ctx.error(ctx.node().op_type + " does not take " + std::string(ir::dtype_name(a.dtype())));
  return Status::ok();
}

template <typename F>
Status binary(KernelContext& ctx, unsigned set, F&& f) {
  return binary_to<void>(ctx, set, DataType::kUndefined, std::forward<F>(f));
}

// Ops of any number of inputs (Max, Min, Sum, Mean): the inputs present, of one dtype out of
// `set`, broadcast together. out starts as the first input; each further input x makes
// out[i] = combine(out[i], x[i]); then finish(out, n, inputs) runs once (Mean divides).
template <typename Combine, typename Finish>
Status variadic(KernelContext& ctx, unsigned set, Combine&& combine, Finish&& finish) {
  const std::string& op = ctx.node().op_type;
  std::vector<const Tensor*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) ins.push_back(&ctx.input(i));
  if (ins.empty()) return ctx.error(op + " needs at least one input");
  std::vector<Dims> all;
  for (const Tensor* t : ins) {
    if (t->dtype() != ins[0]->dtype()) return ctx.error(op + " inputs have different types");
    all.push_back(t->dims());
  }
  auto dims = broadcast_shapes(all);
  if (!dims) return ctx.error(op + " input shapes cannot be broadcast");
  Tensor out(ins[0]->dtype(), *dims);
  int64_t n = out.numel();
  bool ok = dispatch(out.dtype(), set, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* po = n ? out.mutable_data<T>() : nullptr;
    for (size_t k = 0; k < ins.size(); ++k) {
      BroadcastIndex ix(ins[k]->dims(), *dims);
      const T* px = ins[k]->data<T>();
      for (int64_t i = 0; i < n; ++i) {
        T v = px[ix.offset()];
        po[i] = k == 0 ? v : static_cast<T>(combine(po[i], v));
        ix.next();
      }
    }
    finish(po, n, ins.size());
  });
  if (!ok) return ctx.error(op + " does not take " + std::string(ir::dtype_name(out.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}
inline constexpr auto no_finish = [](auto*, int64_t, size_t) {};

// The larger (more) of two elements, NaN winning over any number.
template <typename T>
T nan_or_max(T acc, T v, bool more) {
  if constexpr (is_int<T>) {
    return more ? (v > acc ? v : acc) : (v < acc ? v : acc);
  } else {
    auto a = static_cast<compute_t<T>>(acc), b = static_cast<compute_t<T>>(v);
    if (std::isnan(static_cast<double>(a))) return acc;
    return std::isnan(static_cast<double>(b)) || (more ? b > a : b < a) ? v : acc;
  }
}

// Wrapping integer helpers.
template <typename T>
T wrap_add(T a, T b) {
  if constexpr (is_int<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return T(static_cast<compute_t<T>>(a) + static_cast<compute_t<T>>(b));
}
template <typename T>
T wrap_sub(T a, T b) {
  if constexpr (is_int<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else return T(static_cast<compute_t<T>>(a) - static_cast<compute_t<T>>(b));
}
template <typename T>
T wrap_mul(T a, T b) {
  if constexpr (is_int<T>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // avoid int promotion UB
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return T(static_cast<compute_t<T>>(a) * static_cast<compute_t<T>>(b));
  }
}

// Shape rules: broadcast of all inputs; broadcast with a bool output (same as input 0 is
// infer_same, ops/infer.h).
Status infer_broadcast_same(InferContext& ctx);
Status infer_broadcast_bool(InferContext& ctx);

// A row of a family table (comparison.cc, float_functions.cc, ...): an element-wise op whose
// inputs named in `signature` ("T", "T T", "T...") take the types `types`, with its shape rule
// and its local folds, (pass, fold).
using Folds = std::vector<std::pair<std::string, FoldFn>>;
OpRegistration elementwise_op(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer,
                              const char* signature, uint64_t types, Folds folds = {});

}  // namespace onnxtrim::ops::math

#include "ops/fold.h"

namespace onnxtrim::ops::math {

// op(x, c) -> x where c is a constant whose every element is `identity` (commutative ops also
// match op(c, x)), only when the output provably has x's shape and type (so the constant's
// broadcast changes nothing).
bool fold_identity_element(ir::Node& n, FoldContext& fc, double identity, bool commutative);
// The same as a FoldFn, for a table's row: fold_identity<0, true> for x + 0 and 0 + x.
template <int Identity, bool Commutative>
bool fold_identity(ir::Node& n, FoldContext& fc) {
  return fold_identity_element(n, fc, Identity, Commutative);
}
// f(f(x)) -> f(x) for idempotent f (same op and attributes).
bool fold_idempotent(ir::Node& n, FoldContext& fc);
// f(f(x)) -> x for involutions (Neg, Not).
bool fold_involution(ir::Node& n, FoldContext& fc);

}  // namespace onnxtrim::ops::math
