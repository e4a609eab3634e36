// GlobalMaxPool: Maximum over all spatial positions of each (n, c) plane.
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_global_max_pool(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("GlobalMaxPool needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 3) return ctx.error("GlobalMaxPool input must have rank >= 3");
  int64_t planes = x.dims()[0] * x.dims()[1];
  int64_t sp = 1;
  for (int64_t d = 2; d < x.rank(); ++d) sp *= x.dims()[static_cast<size_t>(d)];
  Dims out_dims(x.dims().begin(), x.dims().begin() + 2);
  out_dims.resize(x.dims().size(), 1);
  Tensor y(x.dtype(), out_dims);
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    for (int64_t pl = 0; pl < planes; ++pl) {
      const T* q = px + pl * sp;
      double m = -std::numeric_limits<double>::infinity();
      bool any = false;
      for (int64_t i = 0; i < sp; ++i) {
        double v = static_cast<double>(q[i]);
        if (std::isnan(v)) { m = v; any = true; break; }
        if (!any || v > m) m = v;
        any = true;
      }
      py[pl] = T(static_cast<compute_t<T>>(any ? m : std::numeric_limits<double>::quiet_NaN()));
    }
  });
  if (!ok) return ctx.error("GlobalMaxPool does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_global_max_pool(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<SymShape> out;
  if (x.shape && x.shape->size() >= 2) {
    out = SymShape{(*x.shape)[0], (*x.shape)[1]};
    for (size_t i = 2; i < x.shape->size(); ++i) out->push_back(Expr::constant(1));
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(GlobalMaxPool, "", "GlobalMaxPool", (std::vector<int>{1, 22}), eval_global_max_pool);
ONNXTRIM_REGISTER_INFER(GlobalMaxPool, "", "GlobalMaxPool", infer_global_max_pool);
ONNXTRIM_REGISTER_TYPES(GlobalMaxPool, "", "GlobalMaxPool", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
