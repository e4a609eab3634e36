// Sum: elementwise sum of any number of inputs, with broadcasting.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_sum(KernelContext& ctx) {
  std::vector<const Tensor*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) ins.push_back(&ctx.input(i));
  if (ins.empty()) return ctx.error("Sum needs at least one input");
  std::vector<Dims> all;
  for (const Tensor* t : ins) {
    if (t->dtype() != ins[0]->dtype()) return ctx.error("Sum inputs have different types");
    all.push_back(t->dims());
  }
  auto dims = broadcast_shapes(all);
  if (!dims) return ctx.error("Sum input shapes cannot be broadcast");
  Tensor out(ins[0]->dtype(), *dims);
  int64_t n = out.numel();
  bool ok = dispatch(out.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* po = n ? out.mutable_data<T>() : nullptr;
    for (size_t k = 0; k < ins.size(); ++k) {
      BroadcastIndex ix(ins[k]->dims(), *dims);
      const T* px = ins[k]->data<T>();
      for (int64_t i = 0; i < n; ++i) {
        T v = px[ix.offset()];
        if (k == 0) po[i] = v;
        else {
          T acc = po[i];
          po[i] = wrap_add(acc, v);
        }
        ix.next();
      }
    }
    
  });
  if (!ok) return ctx.error("Sum does not take " + std::string(ir::dtype_name(out.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation on integers: the symbolic sum)
Status infer_sum(InferContext& ctx) {
  OT_RETURN_IF_ERROR(infer_broadcast(ctx));
  if (!ir::dtype_is_integer(ctx.output(0).elem)) return Status::ok();
  std::vector<size_t> which;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) which.push_back(i);
  propagate_values(ctx, which, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    Expr r = a[0];
    for (size_t i = 1; i < a.size(); ++i) r = r + a[i];
    return r;
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Sum, "", "Sum", (std::vector<int>{1, 6, 8, 13}), eval_sum);
ONNXTRIM_REGISTER_INFER(Sum, "", "Sum", infer_sum);
ONNXTRIM_REGISTER_TYPES(Sum, "", "Sum", "T...", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
