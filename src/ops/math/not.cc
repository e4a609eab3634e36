// Not: logical not of bools.
#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_not(KernelContext& ctx) {
  return unary(ctx, kBool, [](bool v) { return !v; });
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Not, "", "Not", (std::vector<int>{1}), eval_not);
ONNXTRIM_REGISTER_INFER(Not, "", "Not", infer_same);

}  // namespace onnxtrim::ops
