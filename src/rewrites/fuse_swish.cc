// x * Sigmoid(x)                 -> Swish(x)               (SiLU: torch's F.silu, HF's "silu"/"swish")
// x * Sigmoid(alpha * x)         -> Swish(x, alpha)        (alpha a one-element float constant)
// Swish-24 is defined as x * Sigmoid(alpha * x): the same formula, rounded once where the
// decomposition rounds at each step (a few ulps, compared by the check at its tolerance). The
// product's operands and alpha's Mul may come in either order.
// Off by default (a target rule): ONNX Runtime 1.30 has no Swish kernel and runs its function
// body about 2x slower than the Mul/Sigmoid pair, which it already fuses at load (QuickGelu). A
// target whose runtime has it fused turns it on (--target tensorrt, --target openvino:
// passes/targets.cc), and so do --enable fuse_swish and --passes.
// Refuses: opset < 24 (no Swish); a Sigmoid (or alpha's Mul) read by anything else or that is a
// graph output; a Sigmoid that does not read x or alpha * x with the product's other operand as
// x; an alpha that is not a one-element constant, is not finite, is not exactly a float (the
// attribute is one: a double alpha that float rounds would change the function), or has a higher
// rank than x or x of unknown rank (it would broadcast the output to a larger shape); an element
// type Swish does not take (float, float16, bfloat16, double).
#include <cmath>
#include <optional>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

struct SwishFit {
  ir::Value* x = nullptr;
  float alpha = 1.0f;
};

class FuseSwish final : public Rule<SwishFit> {
 public:
  std::vector<std::string> roots() const override { return {"Mul"}; }

 protected:
  Match<SwishFit> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 24) return refuse("opset " + std::to_string(ctx.opset()) + " < 24 has no Swish");
    if (n.num_inputs() != 2 || !n.output(0) || !n.input(0) || !n.input(1)) return refuse("not a binary Mul");
    std::string why = "neither operand is a Sigmoid read only by the Mul";
    for (int i = 0; i < 2; ++i) {
      ir::Value* x = n.input(1 - i);
      const ir::Node* sig = private_producer(n.input(i), "Sigmoid", &n);
      if (!sig) continue;
      const ir::DataType t = swish_elem_type(x, ctx);
      if (t != ir::DataType::kFloat && t != ir::DataType::kFloat16 && t != ir::DataType::kBFloat16 &&
          t != ir::DataType::kDouble) {
        why = "the element type is not float, float16, bfloat16 or double";
        continue;
      }
      const ir::Value* z = sig->input(0);
      if (z == x) return SwishFit{x, 1.0f};
      const ir::Node* scaled = private_producer(z, "Mul", sig);
      if (!scaled || scaled->num_inputs() != 2) {
        why = "the Sigmoid reads neither x nor alpha * x read only by it";
        continue;
      }
      for (int j = 0; j < 2; ++j) {
        if (scaled->input(j) != x) continue;
        std::optional<float> alpha = swish_alpha(scaled->input(1 - j), x, ctx, &why);
        if (alpha) return SwishFit{x, *alpha};
        return refuse(why);
      }
      why = "the Sigmoid's Mul does not read the product's other operand";
    }
    return refuse(why);
  }

  void apply(ir::Node& n, SwishFit& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Node* swish = rw.insert_node(ctx.graph(), &n, "Swish", {m.x}, 1, n.output(0)->name() + "_swish");
    if (m.alpha != 1.0f) rw.set_attribute(swish, ir::Attribute::make_float("alpha", m.alpha));
    rw.set_type(swish->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), swish->output(0))) rw.erase_node_and_dead_producers(&n);
    else rw.erase_node(swish);
  }

 private:
  static ir::DataType swish_elem_type(const ir::Value* x, RuleContext& ctx) {
    if (const ShapeInference* si = ctx.facts())
      if (const ops::TypeInfo* f = si->facts(x); f && f->elem != ir::DataType::kUndefined) return f->elem;
    return x->type.is_tensor() ? x->type.elem : ir::DataType::kUndefined;
  }

  // alpha: a one-element constant, exactly a finite float, that cannot broadcast x.
  static std::optional<float> swish_alpha(const ir::Value* a, const ir::Value* x, RuleContext& ctx, std::string* why) {
    const ir::Tensor* c = ops::FoldContext::constant(a);
    if (!c || c->numel() != 1 || !c->bytes()) {
      *why = "alpha is not a one-element constant";
      return std::nullopt;
    }
    if (c->rank() > 0) {
      const ShapeInference* si = ctx.facts();
      const ops::TypeInfo* f = si ? si->facts(x) : nullptr;
      if (!f || !f->shape || c->rank() > f->rank()) {
        *why = "alpha has a higher rank than x (or x's rank is not known): it would broadcast the output";
        return std::nullopt;
      }
    }
    const double d = ops::element_as_double(*c, 0);
    const auto f = static_cast<float>(d);
    if (!std::isfinite(d) || static_cast<double>(f) != d) {
      *why = "alpha is not exactly a finite float";
      return std::nullopt;
    }
    return f;
  }
};

}  // namespace

ONNXTRIM_REGISTER_TARGET_RULE(FuseSwish, "fuse_swish",
                              "(--target tensorrt, openvino) x * Sigmoid(x) and x * Sigmoid(alpha * x) become Swish "
                              "(opset >= 24; ONNX Runtime runs Swish-24 2x slower than the pair); refuses shared "
                              "Sigmoids, an alpha that broadcasts or is no exact float");

}  // namespace onnxtrim::passes
