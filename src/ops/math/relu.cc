// Relu: max(x, 0); float and signed int types.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_relu(KernelContext& ctx) {
  return unary(ctx, kFloats | kSigned, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return v;  // not reached: no bool Relu
    else if constexpr (is_int<T>) return v < 0 ? T(0) : v;
    else return static_cast<compute_t<T>>(v) < 0 ? T(0.0f) : v;
  });
}

// ---- local folds
// Relu(Relu(x)) -> Relu(x)
bool fold_relu_relu(ir::Node& n, FoldContext& fc) { return math::fold_idempotent(n, fc); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Relu, "", "Relu", (std::vector<int>{1, 6, 13, 14}), eval_relu);
ONNXTRIM_REGISTER_ELEMENTWISE(Relu, "", "Relu");
ONNXTRIM_REGISTER_INFER(Relu, "", "Relu", infer_same);
ONNXTRIM_REGISTER_TYPES(Relu, "", "Relu", "T", {{"T", kFloatTypes | kSignedTypes}});

ONNXTRIM_REGISTER_FOLD(ReluFold0, "", "Relu", "eliminate_idempotent_ops", fold_relu_relu);

}  // namespace onnxtrim::ops
