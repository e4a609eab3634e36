// Identity: y = x, for tensors, sequences and optionals alike.
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_identity(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Identity needs an input");
  ctx.set_output_value(0, *ctx.input_value(0));
  return Status::ok();
}

// ---- shape inference: the input's facts, propagated values included (sequences and optionals too)
Status infer_identity(InferContext& ctx) {
  ctx.output(0) = ctx.input(0);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_INFER(Identity, "", "Identity", infer_identity);
ONNXTRIM_REGISTER_OP(Identity, "", "Identity", (std::vector<int>{1, 13, 14, 16, 19, 21, 23, 24, 25}), eval_identity);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Identity, "", "Identity");

}  // namespace onnxtrim::ops
