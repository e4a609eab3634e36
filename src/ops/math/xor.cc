// Xor: logical, bools with broadcasting.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_xor(KernelContext& ctx) {
  return binary(ctx, kBool, [](bool a, bool b) { return bool(a != b); });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Xor, "", "Xor", (std::vector<int>{1, 7}), eval_xor);
ONNXTRIM_REGISTER_INFER(Xor, "", "Xor", infer_broadcast_same);
ONNXTRIM_REGISTER_TYPES(Xor, "", "Xor", "T T", {{"T", type_bits({ir::DataType::kBool})}});

}  // namespace onnxtrim::ops
