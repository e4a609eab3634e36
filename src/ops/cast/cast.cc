// Cast: converts the element type (saturate matters only for float8 targets).
#include "ops/cast/cast_util.h"
#include "ops/fold.h"
#include "ops/infer.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {

DataType target_of(const ir::Node& n) { return static_cast<DataType>(n.attr_int("to", 0)); }

// ---- evaluate
Status eval_cast(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Cast needs an input");
  Tensor out;
  std::string why;
  cast::E8M0Round round;
  if (!cast::parse_e8m0_round(ctx.node().attr_string("round_mode", "up"), &round))
    return ctx.error("round_mode must be up, down or nearest");
  if (!cast::convert(ctx.input(0), target_of(ctx.node()), ctx.node().attr_int("saturate", 1) != 0, &out, &why, round))
    return ctx.unsupported(why);
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_cast(InferContext& ctx) {
  propagate_same(ctx);
  DataType to = target_of(ctx.node());
  ctx.output(0).elem = to;
  ctx.output(0).values.reset();
  // Integer and bool values convert element by element as the kernel would (cast_value says
  // when a symbolic value survives the target type).
  if (!tracks_values(to)) return Status::ok();
  propagate_values(ctx, {0}, [](const std::vector<Expr>& a, const InferContext& c) -> std::optional<Expr> {
    return cast_value(a[0], static_cast<DataType>(c.node().attr_int("to", 0)));
  });
  return Status::ok();
}

// ---- local folds
// Cast(x) to the type x already has -> x
bool fold_cast_nop(ir::Node& n, FoldContext& fc) {
  const ir::Value* x = n.input(0);
  if (!x || x->type.kind != ir::Type::Kind::kTensor || x->type.elem != target_of(n)) return false;
  return fc.forward(n, 0, n.input(0));
}

// Cast(Cast(x, t1), t2) -> Cast(x, t2) when t1 holds every value of x's type exactly
bool fold_cast_pair(ir::Node& n, FoldContext& fc) {
  ir::Value* mid = n.input(0);
  if (!mid || !mid->producer() || mid->is_graph_output()) return false;
  ir::Node& first = *mid->producer();
  if (first.op_type != "Cast" || !first.is_default_domain()) return false;
  ir::Value* x = first.input(0);
  if (!x || x->type.kind != ir::Type::Kind::kTensor || x->type.elem == DataType::kUndefined) return false;
  if (!cast::holds_exactly(x->type.elem, target_of(first))) return false;
  fc.rewriter().set_input(&n, 0, x);
  if (!mid->has_uses()) fc.rewriter().erase_node(&first);
  return true;
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Cast, "", "Cast", (std::vector<int>{1, 6, 9, 13, 19, 21, 23, 24, 25}), eval_cast);
ONNXTRIM_REGISTER_ELEMENTWISE(Cast, "", "Cast");
ONNXTRIM_REGISTER_INFER(Cast, "", "Cast", infer_cast);
ONNXTRIM_REGISTER_TYPES(Cast, "", "Cast", "T1",
                        {{"T1", kNumericTypes | kFloat8Types |
                                    type_bits({ir::DataType::kBool, ir::DataType::kFloat4E2M1,
                                               ir::DataType::kFloat8E8M0, ir::DataType::kInt2, ir::DataType::kInt4,
                                               ir::DataType::kString, ir::DataType::kUint2, ir::DataType::kUint4})}});
ONNXTRIM_REGISTER_FOLD(CastNop, "", "Cast", "eliminate_nop_ops", fold_cast_nop);
ONNXTRIM_REGISTER_FOLD(CastPair, "", "Cast", "fuse_consecutive_ops", fold_cast_pair);

}  // namespace onnxtrim::ops
