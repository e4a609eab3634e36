// Shrink: soft shrink (float types).
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_shrink_float(KernelContext& ctx) {
  double bias = ctx.node().attr_float("bias", 0.0f);
  double lambd = ctx.node().attr_float("lambd", 0.5f);
  return unary_float(ctx, [&](double x) { return x < -lambd ? x + bias : (x > lambd ? x - bias : 0.0); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Shrink, "", "Shrink", (std::vector<int>{9}), eval_shrink_float);
ONNXTRIM_REGISTER_INFER(Shrink, "", "Shrink", infer_same);
ONNXTRIM_REGISTER_TYPES(Shrink, "", "Shrink", "T",
                        {{"T", kIntTypes | type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16})}});

}  // namespace onnxtrim::ops
