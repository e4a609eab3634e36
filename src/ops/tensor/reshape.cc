// Reshape: same data, new dims; 0 copies the input dim (unless allowzero), -1 is inferred (shape attribute before opset
// 5).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// A rank read from the length of a shape input is believed up to this; a longer shape tensor
// (a Range of 10^12 fed as a shape) leaves the rank unknown rather than making 10^12 dims.
constexpr int64_t kReshapeMaxRank = 1024;
using namespace tensor;

// ---- evaluate
Status eval_reshape(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> shape = ctx.opset() < 5 ? ctx.node().attr_ints("shape") : to_int64_vector(ctx.input(1));
  bool allowzero = ctx.node().attr_int("allowzero", 0) != 0;
  Dims out;
  int64_t known = 1, minus = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowzero) {
      if (i >= x.dims().size()) return ctx.error("Reshape copies a dim the input does not have");
      d = x.dims()[i];
    }
    if (d == -1) {
      if (minus >= 0) return ctx.error("Reshape has more than one -1");
      minus = static_cast<int64_t>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) return ctx.error("Reshape dims must be >= -1");
    out.push_back(d);
    known *= d;
  }
  if (minus >= 0) {
    if (known == 0 || x.numel() % known != 0) return ctx.error("Reshape cannot infer the -1 dim");
    out[static_cast<size_t>(minus)] = x.numel() / known;
  }
  if (numel_of(out) != x.numel()) return ctx.error("Reshape changes the number of elements");
  ctx.set_output(0, reshaped(x, out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_reshape(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<std::vector<Expr>> target;
  if (ctx.opset() < 5) {
    std::vector<Expr> t;
    for (int64_t v : ctx.node().attr_ints("shape")) t.push_back(Expr::constant(v));
    target = t;
  } else {
    target = ctx.input_values(1);
    if (!target) {
      if (auto c = ctx.input_ints(1)) {
        std::vector<Expr> t;
        for (int64_t v : *c) t.push_back(Expr::constant(v));
        target = t;
      }
    }
  }
  if (!target) {
    // Rank is known from the shape input's length.
    const TypeInfo& s = ctx.input(1);
    std::optional<SymShape> out;
    if (s.shape && s.shape->size() == 1)
      if (auto n = (*s.shape)[0].constant_value(); n && *n <= kReshapeMaxRank) out = unknown_dims(ctx, *n);
    ctx.output(0) = TypeInfo::tensor(x.elem, out);
    return Status::ok();
  }
  bool allowzero = ctx.node().attr_int("allowzero", 0) != 0;
  SymShape out;
  int minus = -1;
  Expr known = Expr::constant(1);
  for (size_t i = 0; i < target->size(); ++i) {
    Expr d = (*target)[i];
    auto c = d.constant_value();
    if (c && *c == 0 && !allowzero) {
      if (!x.shape || i >= x.shape->size()) {
        out.push_back(ctx.fresh());
        known = known * out.back();
        continue;
      }
      d = (*x.shape)[i];
    } else if (c && *c == -1) {
      if (minus >= 0) return ctx.error("Reshape has more than one -1");
      minus = static_cast<int>(i);
      out.push_back(Expr::constant(1));
      continue;
    }
    out.push_back(d);
    known = known * d;
  }
  if (minus >= 0) out[static_cast<size_t>(minus)] = x.shape ? Expr::floordiv(product(*x.shape), known) : ctx.fresh();
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  if (x.values && out.size() <= 1) ctx.output(0).values = x.values;
  return Status::ok();
}

// ---- local folds
// Reshape(Reshape(x, s1), s2) -> Reshape(x, s2) when the first has no other consumer and s2 is a
// constant without 0 entries (a 0 would copy a dim of the intermediate, not of x)
bool fold_reshape_pair(ir::Node& n, FoldContext& fc) {
  ir::Value* mid = n.input(0);
  if (!mid || !mid->producer() || mid->uses().size() != 1 || mid->is_graph_output()) return false;
  ir::Node& first = *mid->producer();
  if (first.op_type != "Reshape" || !first.is_default_domain()) return false;
  auto s2 = FoldContext::constant_ints(n.input(1));
  if (!s2 || fc.opset() < 5) return false;
  for (int64_t d : *s2)
    if (d == 0) return false;
  fc.rewriter().set_input(&n, 0, first.input(0));
  fc.rewriter().erase_node(&first);
  return true;
}
}  // namespace

// ---- registration (versions from Changelog.md)
const OpRegistration kReshape[] = {reshaping_op("Reshape", {1, 5, 13, 14, 19, 21, 23, 24, 25}, eval_reshape,
                                                infer_reshape, "shape", fold_reshape_pair)};
ONNXTRIM_REGISTER_OPS(Reshape, kReshape);

}  // namespace onnxtrim::ops
