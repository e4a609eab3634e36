// Tile: repeats the input along each axis.
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_tile(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Tile on sub-byte types");
  std::vector<int64_t> rep = to_int64_vector(ctx.input(1));
  if (static_cast<int64_t>(rep.size()) != x.rank()) return ctx.error("Tile repeats must have one entry per axis");
  Dims out;
  for (size_t i = 0; i < rep.size(); ++i) {
    if (rep[i] < 0) return ctx.error("Tile repeats must be non-negative");
    out.push_back(x.dims()[i] * rep[i]);
  }
  ctx.set_output(0, take(x, out, axiswise_index(x, out, [&](size_t k, int64_t c) { return c % x.dims()[k]; })));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_tile(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  const auto& rep = ctx.input_values(1);
  if (!x.shape || !rep || rep->size() != x.shape->size()) {
    // The rank is the input's; each dim is unknown (a repeat count of 1 keeps it, but which
    // ones are 1 is not known).
    std::optional<SymShape> s;
    if (x.shape) s = unknown_dims(ctx, x.rank());
    ctx.output(0) = TypeInfo::tensor(x.elem, s);
    return Status::ok();
  }
  SymShape out;
  for (size_t i = 0; i < rep->size(); ++i) out.push_back((*x.shape)[i] * (*rep)[i]);
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  // Values: a 1-D tensor repeated a known number of times.
  if (x.values && x.rank() == 1 && tracks_values(x.elem))
    if (auto r = (*rep)[0].constant_value();
        r && *r >= 0 && x.values->size() * static_cast<size_t>(*r) <= kMaxPropagated) {
      std::vector<Expr> v;
      for (int64_t k = 0; k < *r; ++k) v.insert(v.end(), x.values->begin(), x.values->end());
      ctx.output(0).values = std::move(v);
    }
  return Status::ok();
}
// ---- local folds
// Tile by all ones -> x
bool fold_tile_ones(ir::Node& n, FoldContext& fc) {
  if (!constant_all_ones(n.input(1))) return false;
  return fc.forward(n, 0, n.input(0));
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Tile, "", "Tile", (std::vector<int>{1, 6, 13}), eval_tile);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Tile, "", "Tile");
ONNXTRIM_REGISTER_INFER(Tile, "", "Tile", infer_tile);
ONNXTRIM_REGISTER_TYPES(Tile, "", "Tile", "T T1 axis",
                        {{"T", kAllTensorTypes},
                         {"T1", type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16,
                                           ir::DataType::kInt64})},
                         {"axis", type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16})}});
ONNXTRIM_REGISTER_FOLD(Tile0, "", "Tile", "eliminate_nop_ops", fold_tile_ones);

}  // namespace onnxtrim::ops
