// Range: start, start+delta, ... up to (not including) limit.
#include <climits>
#include <cmath>
#include <optional>
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// The element count max(0, ceil((limit - start) / delta)) without overflow: nullopt when it
// is not a count int64 holds (a NaN, an infinity, more than 2^62 elements).
std::optional<int64_t> range_count(double start, double limit, double delta) {
  if (delta == 0) return 0;
  double n = std::ceil((limit - start) / delta);
  if (std::isnan(n)) return std::nullopt;
  if (n <= 0) return 0;
  if (n > 4.0e18) return std::nullopt;
  return static_cast<int64_t>(n);
}
std::optional<int64_t> range_count(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0) return 0;
  __int128 span = static_cast<__int128>(limit) - start;
  __int128 step = delta;
  __int128 n = span / step + ((span % step != 0 && (span < 0) == (step < 0)) ? 1 : 0);  // ceil
  if (n <= 0) return 0;
  if (n > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(n);
}

// ---- evaluate
Status eval_range(KernelContext& ctx) {
  const Tensor& s = ctx.input(0);
  const Tensor& l = ctx.input(1);
  const Tensor& d = ctx.input(2);
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1) return ctx.error("Range takes scalars");
  Tensor out;
  bool counted = true;
  bool ok = dispatch(s.dtype(), kFloats | kSigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      int64_t a = to_int64_vector(s)[0], b = to_int64_vector(l)[0], c = to_int64_vector(d)[0];
      auto n = range_count(a, b, c);
      if (!n) return void(counted = false);
      out = Tensor(s.dtype(), {*n});
      // Every element lies between start and limit, so it fits T; computed wide, never wrapping.
      T* p = out.mutable_data<T>();
      for (int64_t i = 0; i < *n; ++i) p[i] = static_cast<T>(static_cast<__int128>(a) + static_cast<__int128>(i) * c);
    } else {
      double a = element_as_double(s, 0), b = element_as_double(l, 0), c = element_as_double(d, 0);
      auto n = range_count(a, b, c);
      if (!n) return void(counted = false);
      out = Tensor(s.dtype(), {*n});
      T* p = out.mutable_data<T>();
      for (int64_t i = 0; i < *n; ++i) p[i] = T(static_cast<compute_t<T>>(a + static_cast<double>(i) * c));
    }
  });
  if (!ok) return ctx.error("Range does not take " + std::string(ir::dtype_name(s.dtype())));
  if (!counted) return ctx.error("Range from start to limit by delta has no finite element count that fits int64");
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_range(InferContext& ctx) {
  DataType elem = ctx.input(0).elem;
  const auto& s = ctx.input_values(0);
  const auto& l = ctx.input_values(1);
  const auto& d = ctx.input_values(2);
  SymShape shape{ctx.fresh()};
  // All three known constants (any numeric type, any sign of delta): the count directly.
  const ir::Tensor* cs = ctx.input_constant(0);
  const ir::Tensor* cl = ctx.input_constant(1);
  const ir::Tensor* cd = ctx.input_constant(2);
  if (cs && cl && cd && cs->numel() == 1 && cl->numel() == 1 && cd->numel() == 1 && element_as_double(*cd, 0) != 0 &&
      !(s && l && d && (*d)[0].constant_value() && *(*d)[0].constant_value() > 0)) {
    auto n = ir::dtype_is_integer(cs->dtype())
                 ? range_count(to_int64_vector(*cs)[0], to_int64_vector(*cl)[0], to_int64_vector(*cd)[0])
                 : range_count(element_as_double(*cs, 0), element_as_double(*cl, 0), element_as_double(*cd, 0));
    if (n) shape[0] = Expr::constant(*n);
    ctx.output(0) = TypeInfo::tensor(elem, shape);
    return Status::ok();
  }
  if (s && l && d && s->size() == 1 && l->size() == 1 && d->size() == 1) {
    auto dc = (*d)[0].constant_value();
    Expr span = (*l)[0] - (*s)[0];
    if (dc && *dc != 0) {
      // The length is max(0, ceil((limit - start) / delta)); the max goes when bounds show the
      // span is never negative (Range(0, n, 1) has length n).
      Expr n = *dc > 0 ? Expr::ceildiv(span, Expr::constant(*dc))
                       : Expr::ceildiv(Expr::constant(0) - span, Expr::constant(-*dc));
      n = Expr::max(Expr::constant(0), n);
      shape[0] = n;
      // Small ranges of known length are propagated element by element (start may be symbolic).
      if (auto nc = n.constant_value(); nc && *nc <= static_cast<int64_t>(kMaxPropagated)) {
        std::vector<Expr> v;
        for (int64_t i = 0; i < *nc; ++i) v.push_back((*s)[0] + Expr::constant(i * *dc));
        ctx.output(0) = TypeInfo::tensor(elem, shape);
        ctx.output(0).values = v;
        return Status::ok();
      }
    }
  }
  ctx.output(0) = TypeInfo::tensor(elem, shape);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Range, "", "Range", (std::vector<int>{11, 27}), eval_range);
ONNXTRIM_REGISTER_INFER(Range, "", "Range", infer_range);
ONNXTRIM_REGISTER_TYPES(Range, "", "Range", "T T T",
                        {{"T", kFloatTypes |
                                   type_bits({ir::DataType::kInt16, ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
