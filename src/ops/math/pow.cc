// Pow: x ** y; the exponent may have another numeric type than the base.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
template <typename T>
T int_pow(T base, int64_t e) {
  if (e < 0) return base == T(1) ? T(1) : (base == T(-1) ? (e % 2 ? T(-1) : T(1)) : T(0));
  T r = T(1);
  while (e > 0) {
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}

Status eval_pow(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("Pow needs two inputs");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  auto dims = broadcast_shapes(a.dims(), b.dims());
  if (!dims) return ctx.error("Pow input shapes cannot be broadcast");
  Tensor out(a.dtype(), *dims);
  int64_t n = out.numel();
  BroadcastIndex ia(a.dims(), *dims), ib(b.dims(), *dims);
  bool ok = dispatch(a.dtype(), kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = a.data<T>();
    T* po = n ? out.mutable_data<T>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      double e = element_as_double(b, ib.offset());
      if constexpr (is_int<T>) {
        if (ir::dtype_is_integer(b.dtype()))
          po[i] = int_pow<T>(pa[ia.offset()], to_int64_vector(b)[static_cast<size_t>(ib.offset())]);
        else po[i] = static_cast<T>(std::pow(static_cast<double>(pa[ia.offset()]), e));
      } else {
        po[i] =
            T(static_cast<compute_t<T>>(std::pow(static_cast<double>(static_cast<compute_t<T>>(pa[ia.offset()])), e)));
      }
      ia.next();
      ib.next();
    }
  });
  if (!ok) return ctx.error("Pow does not take " + std::string(ir::dtype_name(a.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- local folds
// x ** 1 -> x (only when the exponent has x's type: the output type is the base's)
bool fold_pow_one(ir::Node& n, FoldContext& fc) { return math::fold_identity_element(n, fc, 1.0, false); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Pow, "", "Pow", (std::vector<int>{1, 7, 12, 13, 15}), eval_pow);
ONNXTRIM_REGISTER_ELEMENTWISE(Pow, "", "Pow");
ONNXTRIM_REGISTER_INFER(Pow, "", "Pow", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(Pow, "", "Pow", "T T1",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64})},
                         {"T1", kNumericTypes}});

ONNXTRIM_REGISTER_FOLD(PowFold0, "", "Pow", "eliminate_identity_elements", fold_pow_one);

}  // namespace onnxtrim::ops
