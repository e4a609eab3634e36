#include "ops/math/elementwise.h"

namespace onnxtrim::ops::math {

Status infer_broadcast_same(InferContext& ctx) { return infer_broadcast(ctx); }

Status infer_broadcast_bool(InferContext& ctx) { return infer_broadcast(ctx, DataType::kBool); }

OpRegistration elementwise_op(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer,
                              const char* signature, uint64_t types, Folds folds) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer,
          .signature = signature,
          .types = {{"T", types}},
          .properties = {OpProperty::kElementwise},
          .folds = std::move(folds)};
}

}  // namespace onnxtrim::ops::math

namespace onnxtrim::ops::math {

bool fold_identity_element(ir::Node& n, FoldContext& fc, double identity, bool commutative) {
  if (n.num_inputs() != 2 || !n.output(0)) return false;
  for (int side = 0; side < (commutative ? 2 : 1); ++side) {
    ir::Value* x = n.input(static_cast<size_t>(side));
    ir::Value* c = n.input(static_cast<size_t>(1 - side));
    if (!FoldContext::constant_all_equal(c, identity)) continue;
    // Broadcasting with the constant must not change x's shape or type.
    if (!FoldContext::same_shape(x, n.output(0))) continue;
    if (fc.forward(n, 0, x)) return true;
  }
  return false;
}

bool fold_idempotent(ir::Node& n, FoldContext& fc) {
  ir::Value* in = n.input(0);
  if (!in || !in->producer()) return false;
  const ir::Node& inner = *in->producer();
  if (inner.op_type != n.op_type || inner.domain != n.domain || inner.attributes.size() != n.attributes.size())
    return false;
  for (const auto& a : n.attributes) {
    const ir::Attribute* b = inner.attr(a.name);
    if (!b || !ir::attributes_equal(a, *b)) return false;
  }
  return fc.forward(n, 0, in);
}

bool fold_involution(ir::Node& n, FoldContext& fc) {
  ir::Value* in = n.input(0);
  if (!in || !in->producer()) return false;
  const ir::Node& inner = *in->producer();
  if (inner.op_type != n.op_type || inner.domain != n.domain) return false;
  return fc.forward(n, 0, inner.input(0));
}

}  // namespace onnxtrim::ops::math
