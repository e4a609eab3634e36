// EyeLike: ones on the k-th diagonal of a 2-D tensor shaped like the input (dtype attribute or
// the input's), zeros elsewhere.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

DataType eye_like_out_type(const ir::Node& n, DataType in) {
  return n.has_attr("dtype") ? static_cast<DataType>(n.attr_int("dtype", 1)) : in;
}

// ---- evaluate
Status eval_eye_like(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 2) return ctx.error("EyeLike needs a 2-D input");
  int64_t k = ctx.node().attr_int("k", 0);
  Tensor y(eye_like_out_type(ctx.node(), x.dtype()), x.dims());
  bool ok = dispatch(y.dtype(), kAll, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = y.numel() ? y.mutable_data<T>() : nullptr;
    for (int64_t i = 0; i < x.dims()[0]; ++i) {
      int64_t j = i + k;
      if (j >= 0 && j < x.dims()[1]) {
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) p[i * x.dims()[1] + j] = T(1.0f);
        else p[i * x.dims()[1] + j] = static_cast<T>(1);
      }
    }
  });
  if (!ok) return ctx.error("EyeLike does not make " + std::string(ir::dtype_name(y.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_eye_like(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = eye_like_out_type(ctx.node(), ctx.input(0).elem);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(EyeLike, "", "EyeLike", (std::vector<int>{9, 22}), eval_eye_like);
ONNXTRIM_REGISTER_INFER(EyeLike, "", "EyeLike", infer_eye_like);
ONNXTRIM_REGISTER_TYPES(EyeLike, "", "EyeLike", "T1", {{"T1", kNumericTypes | type_bits({ir::DataType::kBool})}});

}  // namespace onnxtrim::ops
