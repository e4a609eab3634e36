// Value propagation helpers (DESIGN.md "Facts"): comparisons, logic and selections propagate
// the elements of small integer and bool tensors like arithmetic does, decided from the facts
// of symbolic/bounds.h (a dim is never negative).
#pragma once

#include <optional>
#include <vector>

#include "ops/infer.h"
#include "symbolic/bounds.h"

namespace onnxtrim::ops {

// Element types whose elements propagation tracks: integers, and bool as 0/1.
bool tracks_values(ir::DataType t);
// A bool element as a propagated value.
inline Expr truth(bool b) { return Expr::constant(b ? 1 : 0); }
// Output 0's values, element by element, from the values of the inputs listed in `which`
// (tensors of rank <= 1, broadcast against each other): out[i] = f(elements of the inputs at
// i). Nothing is set when an input has no values, the sizes do not broadcast, the output type
// is not tracked, or f gives up (returns nullopt) on any element.
using ValueFn = std::optional<Expr> (*)(const std::vector<Expr>& args, const InferContext& ctx);
void propagate_values(InferContext& ctx, const std::vector<size_t>& which, ValueFn f);
// The same for ops of any number of inputs (Max, Min, Sum): out[i] = Op(...Op(a[i], b[i])...),
// over every input present.
template <Expr (*Op)(const Expr&, const Expr&)>
void propagate_fold(InferContext& ctx) {
  std::vector<size_t> which;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) which.push_back(i);
  propagate_values(ctx, which, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    Expr r = a[0];
    for (size_t i = 1; i < a.size(); ++i) r = Op(r, a[i]);
    return r;
  });
}
// And/Or with an absorbing element z (0 for And, 1 for Or): when one input is known to be z
// everywhere, so is the output, whatever the other input holds (known or not). Sets output 0's
// values to z when its shape is static with at most kMaxPropagated elements (rank <= 1).
void propagate_absorbing(InferContext& ctx, int64_t z);
// Integer division and remainder as ONNX computes them on integers (truncating division; Mod
// with the divisor's sign, or the dividend's with fmod=1), when the operands' bounds make the
// result expressible; nullopt otherwise.
std::optional<Expr> int_div(const Expr& a, const Expr& b);
std::optional<Expr> int_mod(const Expr& a, const Expr& b, bool fmod);
// A propagated integer converted to element type `to` as Cast does (wrapping constants), when
// exact; nullopt otherwise. Symbolic values are kept for 64-bit targets when their bounds fit,
// and for 32-bit targets when they are never negative (dims are taken to be below 2^31, as
// every exporter that casts shapes to int32 assumes).
std::optional<Expr> cast_value(const Expr& v, ir::DataType to);

}  // namespace onnxtrim::ops
