// Range: start, start+delta, ... up to (not including) limit.
#include <cmath>
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_range(KernelContext& ctx) {
  const Tensor& s = ctx.input(0);
  const Tensor& l = ctx.input(1);
  const Tensor& d = ctx.input(2);
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1) return ctx.error("Range takes scalars");
  Tensor out;
  bool ok = dispatch(s.dtype(), kFloats | kSigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      int64_t a = to_int64_vector(s)[0], b = to_int64_vector(l)[0], c = to_int64_vector(d)[0];
      int64_t n = c == 0 ? 0 : std::max<int64_t>(0, (b - a + (c > 0 ? c - 1 : c + 1)) / c);
      out = Tensor(s.dtype(), {n});
      for (int64_t i = 0; i < n; ++i) out.mutable_data<T>()[i] = static_cast<T>(a + i * c);
    } else {
      double a = element_as_double(s, 0), b = element_as_double(l, 0), c = element_as_double(d, 0);
      auto n = static_cast<int64_t>(std::max(0.0, std::ceil((b - a) / c)));
      out = Tensor(s.dtype(), {n});
      for (int64_t i = 0; i < n; ++i) out.mutable_data<T>()[i] = T(static_cast<compute_t<T>>(a + static_cast<double>(i) * c));
    }
  });
  if (!ok) return ctx.error("Range does not take " + std::string(ir::dtype_name(s.dtype())));
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
    double n = std::ceil((element_as_double(*cl, 0) - element_as_double(*cs, 0)) / element_as_double(*cd, 0));
    shape[0] = Expr::constant(std::max<int64_t>(0, static_cast<int64_t>(n)));
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
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt16, ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
