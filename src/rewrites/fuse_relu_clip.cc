// Clip(Relu(x), lo, hi) -> Clip(x, max(lo, 0), hi)
// Relu(Clip(x, lo, hi)) -> Clip(x, max(lo, 0), max(hi, 0))
// Relu is max(x, 0) and Clip is min(max(x, lo), hi), so the two clamps merge (an absent lo is
// -inf, an absent hi +inf). NaN passes through both forms unchanged (the evaluator's Relu and
// Clip keep NaN, as ONNX Runtime's do), and lo > hi gives hi (or max(hi, 0)) everywhere in
// both forms.
// Refuses: bounds that are not constant scalars; an intermediate with other consumers or
// that is a graph output; types Relu does not take (unsigned integers); opset < 6.
#include <cstring>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"

namespace onnxtrim::passes {
namespace {

// A Clip bound input (opset >= 11): absent, or a constant of one element.
bool bound_ok(const ir::Node& clip, size_t i) {
  if (i >= clip.num_inputs() || !clip.input(i)) return true;
  const ir::Tensor* t = ops::FoldContext::constant(clip.input(i));
  return t && t->numel() == 1 && t->bytes() && t->dtype() != ir::DataType::kString;
}

// The node the rule is rooted at (a Clip or a Relu) and the other one, which it reads.
struct ReluClip {
  ir::Node* inner;
};

class FuseReluClip final : public Rule<ReluClip> {
 public:
  std::vector<std::string> roots() const override { return {"Clip", "Relu"}; }

 protected:
  Match<ReluClip> match(const ir::Node& n, RuleContext& ctx) override {
    const int64_t opset = ctx.opset();
    if (opset < 6) return refuse("opset " + std::to_string(opset) + " < 6");
    const bool clip_outer = n.op_type == "Clip";
    ir::Value* y = n.input(0);
    ir::Node* inner = y ? y->producer() : nullptr;
    if (!is_op(inner, clip_outer ? "Relu" : "Clip"))
      return refuse(clip_outer ? "its input is not a Relu" : "its input is not a Clip");
    if (!read_only_by(y, &n)) return refuse("the " + inner->op_type + " has other readers or is a graph output");
    const ir::Node& clip = clip_outer ? n : *inner;
    if (!bounds_ok(clip, opset)) return refuse("a Clip bound is not a constant scalar");
    if (!signed_type(inner->input(0))) return refuse("the element type is not float or signed");
    if (!clip_outer && !ir::Rewriter::can_replace(n.output(0), y))
      return refuse("the Relu's output name cannot be kept");
    return ReluClip{inner};
  }

  void apply(ir::Node& n, ReluClip& m, RuleContext& ctx, ir::Rewriter& rw) override {
    if (n.op_type == "Clip") clip_of_relu(n, *m.inner, ctx.graph(), rw, ctx.opset());
    else relu_of_clip(n, *m.inner, ctx.graph(), rw, ctx.opset());
  }

 private:
  static bool bounds_ok(const ir::Node& clip, int64_t opset) {
    return opset < 11 || (bound_ok(clip, 1) && bound_ok(clip, 2));
  }

  // Relu takes float and signed integer types; the new zero bound needs the type.
  static bool signed_type(const ir::Value* x) {
    if (!x || x->type.kind != ir::Type::Kind::kTensor) return false;
    ir::DataType t = x->type.elem;
    return ir::dtype_is_float(t) || ir::dtype_is_signed(t);
  }

  // max(bound, 0) for the bound input i (absent: 0 when raise_absent, else stays absent).
  static void raise_bound(ir::Node& clip, size_t i, bool raise_absent, ir::DataType t, ir::Graph& g, ir::Rewriter& rw) {
    const ir::Value* b = i < clip.num_inputs() ? clip.input(i) : nullptr;
    if (b) {
      const ir::Tensor* c = ops::FoldContext::constant(b);
      if (!(ops::element_as_double(*c, 0) < 0)) return;  // already >= 0 (or NaN: kept)
    } else if (!raise_absent) {
      return;
    }
    ir::Tensor zero(t, {});
    std::memset(zero.mutable_bytes(), 0, zero.byte_size());
    ir::Value* z = rw.add_initializer(g, std::move(zero), clip.output(0)->name() + (i == 1 ? "_min" : "_max"));
    if (i == 2 && clip.num_inputs() < 2) rw.set_input(&clip, 1, nullptr);
    rw.set_input(&clip, i, z);
  }

  static void raise_attr(ir::Node& clip, const char* name, float def, ir::Rewriter& rw) {
    float v = clip.attr_float(name, def);
    if (v < 0.0f) rw.set_attribute(&clip, ir::Attribute::make_float(name, 0.0f));
  }

  static void clip_of_relu(ir::Node& clip, ir::Node& relu, ir::Graph& g, ir::Rewriter& rw, int64_t opset) {
    ir::Value* x = relu.input(0);
    if (opset < 11) raise_attr(clip, "min", -3.4028234663852886e38f, rw);
    else raise_bound(clip, 1, true, x->type.elem, g, rw);
    rw.set_input(&clip, 0, x);
    rw.erase_node(&relu);
  }

  static void relu_of_clip(ir::Node& relu, ir::Node& clip, ir::Graph& g, ir::Rewriter& rw, int64_t opset) {
    ir::Value* x = clip.input(0);
    if (opset < 11) {
      raise_attr(clip, "min", -3.4028234663852886e38f, rw);
      raise_attr(clip, "max", 3.4028234663852886e38f, rw);
    } else {
      raise_bound(clip, 1, true, x->type.elem, g, rw);
      raise_bound(clip, 2, false, x->type.elem, g, rw);
    }
    if (rw.replace_all_uses_with(relu.output(0), clip.output(0))) rw.erase_node(&relu);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseReluClip, "fuse_relu_clip",
                       "Clip(Relu(x)) and Relu(Clip(x)) become one Clip with the lower bound raised to 0; refuses "
                       "non-constant bounds, shared or graph-output intermediates");

}  // namespace onnxtrim::passes
