// Expand: broadcasts the input to a shape (numpy rules, both ways).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_expand(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Expand on sub-byte types");
  auto dims = broadcast_shapes(x.dims(), to_int64_vector(ctx.input(1)));
  if (!dims) return ctx.error("Expand: shapes cannot be broadcast");
  std::vector<int64_t> index = take_index(x.dtype(), *dims);
  BroadcastIndex bi(x.dims(), *dims);
  for (auto& i : index) {
    i = bi.offset();
    bi.next();
  }
  ctx.set_output(0, take(x, *dims, index));
  return Status::ok();
}

// ---- shape inference (with value propagation)
// The output rank is max(rank(x), length of the shape input) even when the shape's elements
// are unknown (then each of those dims is x's when x's is known > 1, else unknown).
// Values: Expand of a propagated scalar or vector to a small 1-D shape repeats them.
Status infer_expand(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  const auto& v = ctx.input_values(1);
  std::optional<SymShape> target;
  if (v) {
    target = SymShape(v->begin(), v->end());
  } else if (const TypeInfo& s = ctx.input(1); s.shape && s.shape->size() == 1) {
    if (auto n = (*s.shape)[0].constant_value()) target = unknown_dims(ctx, *n);
  }
  if (!x.shape || !target) return unranked_output(ctx, x.elem);
  bool bad = false;
  auto s = broadcast({&*x.shape, &*target}, &bad);
  if (bad) return ctx.error("Expand: shapes cannot be broadcast");
  ctx.output(0) = TypeInfo::tensor(x.elem, s);
  if (x.values && s && s->size() <= 1 && tracks_values(x.elem)) {
    size_t n = s->empty() ? 1 : 0;
    if (!s->empty())
      if (auto c = (*s)[0].constant_value(); c && *c >= 0 && *c <= static_cast<int64_t>(kMaxPropagated))
        n = static_cast<size_t>(*c);
    if (n > 0 && (x.values->size() == 1 || x.values->size() == n)) {
      std::vector<Expr> out;
      for (size_t i = 0; i < n; ++i) out.push_back((*x.values)[x.values->size() == 1 ? 0 : i]);
      ctx.output(0).values = std::move(out);
    } else if (!s->empty() && (*s)[0].constant_value() == 0) {
      ctx.output(0).values = std::vector<Expr>{};
    }
  }
  return Status::ok();
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Expand, "", "Expand", (std::vector<int>{8, 13}), eval_expand);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Expand, "", "Expand");
ONNXTRIM_REGISTER_INFER(Expand, "", "Expand", infer_expand);
ONNXTRIM_REGISTER_TYPES(Expand, "", "Expand", "T shape",
                        {{"T", kAllTensorTypes}, {"shape", type_bits({ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(Expand0, "", "Expand", "eliminate_nop_ops", tensor::fold_same_shape_to_input);

}  // namespace onnxtrim::ops
