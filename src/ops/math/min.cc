// Min: elementwise minimum of any number of inputs (NaN wins).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_min(KernelContext& ctx) {
  std::vector<const Tensor*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) ins.push_back(&ctx.input(i));
  if (ins.empty()) return ctx.error("Min needs at least one input");
  std::vector<Dims> all;
  for (const Tensor* t : ins) {
    if (t->dtype() != ins[0]->dtype()) return ctx.error("Min inputs have different types");
    all.push_back(t->dims());
  }
  auto dims = broadcast_shapes(all);
  if (!dims) return ctx.error("Min input shapes cannot be broadcast");
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
          if constexpr (is_int<T>) po[i] = v < acc ? v : acc;
          else {
            auto a = static_cast<compute_t<T>>(acc), b = static_cast<compute_t<T>>(v);
            po[i] = std::isnan(static_cast<double>(a)) ? acc : (std::isnan(static_cast<double>(b)) || b < a ? v : acc);
          }
        }
        ix.next();
      }
    }
    
  });
  if (!ok) return ctx.error("Min does not take " + std::string(ir::dtype_name(out.dtype())));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Min, "", "Min", (std::vector<int>{1, 6, 8, 12, 13}), eval_min);
ONNXTRIM_REGISTER_INFER(Min, "", "Min", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(Min, "", "Min", "T...", {{"T", kNumericTypes}});

}  // namespace onnxtrim::ops
