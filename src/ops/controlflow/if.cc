// If: runs then_branch or else_branch (subgraphs that see the enclosing scope).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

const ir::Graph* branch(const ir::Node& n, bool cond) {
  const ir::Attribute* a = n.attr(cond ? "then_branch" : "else_branch");
  return a && a->type == ir::AttrType::kGraph ? a->g.get() : nullptr;
}

// ---- evaluate
Status eval_if(KernelContext& ctx) {
  if (!ctx.has_input(0) || ctx.input(0).numel() != 1) return ctx.error("If needs a single-element condition");
  bool cond = element_as_double(ctx.input(0), 0) != 0;
  const ir::Graph* g = branch(ctx.node(), cond);
  if (!g) return ctx.error("If has no branch graph");
  auto r = ctx.run_subgraph(*g, {});
  if (!r) return std::move(r).take_status();
  if (r.value().size() != ctx.num_outputs()) return ctx.error("If branch has the wrong number of outputs");
  for (size_t i = 0; i < r.value().size(); ++i) ctx.set_output_value(i, std::move(r.value()[i]));
  return Status::ok();
}

// ---- shape inference: both branches, merged (dims that differ become unknown)
TypeInfo merge(const TypeInfo& a, const TypeInfo& b) {
  if (a.kind != b.kind) return TypeInfo{};
  TypeInfo m = a;
  m.values.reset();
  if (a.elem != b.elem) m.elem = ir::DataType::kUndefined;
  if (!a.shape || !b.shape || a.shape->size() != b.shape->size()) {
    m.shape.reset();
  } else {
    for (size_t i = 0; i < a.shape->size(); ++i)
      if (!((*a.shape)[i] == (*b.shape)[i])) (*m.shape)[i] = Expr::fresh();
  }
  if (a.inner && b.inner) m.inner = std::make_shared<TypeInfo>(merge(*a.inner, *b.inner));
  return m;
}

Status infer_if(InferContext& ctx) {
  const ir::Graph* t = branch(ctx.node(), true);
  const ir::Graph* e = branch(ctx.node(), false);
  if (!t || !e) return Status::ok();
  auto rt = ctx.infer_subgraph(*t, {});
  auto re = ctx.infer_subgraph(*e, {});
  if (!rt || !re) return Status::ok();
  // A constant condition picks one branch's facts.
  std::optional<bool> cond;
  if (auto c = ctx.input_ints(0); c && c->size() == 1) cond = (*c)[0] != 0;
  for (size_t i = 0; i < ctx.num_outputs() && i < rt.value().size() && i < re.value().size(); ++i)
    ctx.output(i) = cond ? (*cond ? rt.value()[i] : re.value()[i]) : merge(rt.value()[i], re.value()[i]);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(If, "", "If", (std::vector<int>{1, 11, 13, 16, 19, 21, 23, 24, 25}), eval_if);
ONNXTRIM_REGISTER_INFER(If, "", "If", infer_if);
ONNXTRIM_REGISTER_TYPES(If, "", "If", "B", {{"B", type_bits({ir::DataType::kBool})}});

}  // namespace onnxtrim::ops
