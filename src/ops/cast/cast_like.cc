// CastLike: Cast to the element type of a second input.
#include "ops/cast/cast_util.h"
#include "ops/infer.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_cast_like(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("CastLike needs two inputs");
  Tensor out;
  std::string why;
  cast::E8M0Round round;
  if (!cast::parse_e8m0_round(ctx.node().attr_string("round_mode", "up"), &round))
    return ctx.error("round_mode must be up, down or nearest");
  if (!cast::convert(ctx.input(0), ctx.input(1).dtype(), ctx.node().attr_int("saturate", 1) != 0, &out, &why, round))
    return ctx.unsupported(why);
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
// Values convert as Cast's do (cast_value), to the element type of input 1.
Status infer_cast_like(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = ctx.input(1).elem;
  if (!tracks_values(ctx.output(0).elem)) return Status::ok();
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext& c) -> std::optional<Expr> {
    return cast_value(a[0], c.input(1).elem);
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(CastLike, "", "CastLike", (std::vector<int>{15, 19, 21, 23, 24, 25}), eval_cast_like);
ONNXTRIM_REGISTER_INFER(CastLike, "", "CastLike", infer_cast_like);
ONNXTRIM_REGISTER_TYPES(CastLike, "", "CastLike", "T1 T2",
                        {{"T1", kNumericTypes | kFloat8Types |
                                    type_bits({ir::DataType::kBool, ir::DataType::kFloat4E2M1,
                                               ir::DataType::kFloat8E8M0, ir::DataType::kInt2, ir::DataType::kInt4,
                                               ir::DataType::kString, ir::DataType::kUint2, ir::DataType::kUint4})},
                         {"T2", kNumericTypes | kFloat8Types |
                                    type_bits({ir::DataType::kBool, ir::DataType::kFloat4E2M1,
                                               ir::DataType::kFloat8E8M0, ir::DataType::kInt2, ir::DataType::kInt4,
                                               ir::DataType::kString, ir::DataType::kUint2, ir::DataType::kUint4})}});

}  // namespace onnxtrim::ops
