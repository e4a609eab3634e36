// Binarizer (ai.onnx.ml): y = x > threshold ? 1 : 0, same type and shape as x.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_binarizer(KernelContext& ctx) {
  double threshold = ctx.node().attr_float("threshold", 0.0f);
  return unary(ctx, kFloats | kSigned | kUnsigned, [&](auto v) {
    using T = decltype(v);
    return as<T>(static_cast<double>(static_cast<compute_t<T>>(v)) > threshold ? 1.0 : 0.0);
  });
}

}  // namespace

// ---- registration (versions of the ai.onnx.ml domain)
ONNXTRIM_REGISTER_OP(Binarizer, "ai.onnx.ml", "Binarizer", (std::vector<int>{1}), eval_binarizer);
ONNXTRIM_REGISTER_INFER(Binarizer, "ai.onnx.ml", "Binarizer", infer_same);

}  // namespace onnxtrim::ops
