#include "ops/math/elementwise.h"

namespace onnxtrim::ops::math {

Status infer_same(InferContext& ctx) {
  propagate_same(ctx);
  return Status::ok();
}

Status infer_broadcast_same(InferContext& ctx) { return infer_broadcast(ctx); }

Status infer_broadcast_bool(InferContext& ctx) { return infer_broadcast(ctx, DataType::kBool); }

}  // namespace onnxtrim::ops::math
