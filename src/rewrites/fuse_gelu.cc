// 0.5 * x * (1 + Erf(x / sqrt(2)))                                -> Gelu(x)
// 0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))         -> Gelu(x, approximate = "tanh")
// The two forms exporters write for GELU (torch's erf and tanh forms, HF's NewGELU, tf2onnx):
// Gelu-20 is defined by these formulas. The product may be grouped any way (Mul(Mul(x, 0.5), s),
// Mul(x, Mul(0.5, s)), ...): the root Mul's factors, through Muls read only by the product, are
// exactly x, 0.5 and s = 1 + Erf(..) (or 1 + Tanh(..)). x / sqrt(2) may be x * (1 / sqrt(2)), x^3
// Pow(x, 3) or x * x * x. The fused op rounds once where the decomposition rounds at each step:
// the results differ by a few ulps, which the check compares at its tolerance.
// Refuses: opset < 20 (no Gelu); a constant that is not the formula's value rounded to the
// element type (0.5, 1, sqrt(2) or 1/sqrt(2), sqrt(2/pi), 0.044715, 3); a constant of more than
// one element, or of higher rank than x (it would broadcast the output to a larger shape); an
// intermediate read by anything else or that is a graph output; an element type Gelu does not
// take; an x of unknown rank when a constant has a rank.
#include <cmath>
#include <limits>
#include <optional>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

// The relative difference a constant may have from the formula's value: its rounding to the
// element type (a few units in the last place).
double tolerance(ir::DataType t) {
  switch (t) {
    case ir::DataType::kDouble: return 4 * std::numeric_limits<double>::epsilon();
    case ir::DataType::kFloat: return 4 * std::numeric_limits<float>::epsilon();
    case ir::DataType::kFloat16: return 4 * 9.765625e-4;
    case ir::DataType::kBFloat16: return 4 * 7.8125e-3;
    default: return 0;
  }
}

struct Gelu {
  ir::Value* x = nullptr;
  bool tanh = false;
};

class FuseGelu final : public Rule<Gelu> {
 public:
  std::vector<std::string> roots() const override { return {"Mul"}; }

 protected:
  Match<Gelu> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 20) return refuse("opset " + std::to_string(ctx.opset()) + " < 20 has no Gelu");
    if (!n.output(0)) return refuse("no output");
    // The product's factors.
    std::vector<ir::Value*> leaves;
    collect(n, leaves, 0);
    if (leaves.size() != 3) return refuse("the product has " + std::to_string(leaves.size()) + " factors, not 3");
    // One constant factor, 0.5; of the other two, one is x and the other 1 + Erf/Tanh of x.
    size_t k = 3;
    for (size_t i = 0; i < 3 && k == 3; ++i)
      if (ops::FoldContext::constant(leaves[i])) k = i;
    if (k == 3) return refuse("no factor is a constant");
    ir::Value* a = leaves[(k + 1) % 3];
    ir::Value* b = leaves[(k + 2) % 3];
    std::string why;
    for (ir::Value* x : {a, b}) {
      ir::DataType t = elem_type(x, ctx);
      if (tolerance(t) == 0) {
        why = "the element type is not float, float16, bfloat16 or double";
        continue;
      }
      dtype_ = t;
      rank_ = known_rank(x, ctx);
      if (!near(leaves[k], 0.5)) return refuse("the constant factor is not 0.5");
      std::optional<bool> tanh = one_plus(x == a ? b : a, x, &why);
      if (tanh) return Gelu{x, *tanh};
    }
    return refuse(why);
  }

  void apply(ir::Node& n, Gelu& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Node* gelu = rw.insert_node(ctx.graph(), &n, "Gelu", {m.x}, 1, n.output(0)->name() + "_gelu");
    if (m.tanh) rw.set_attribute(gelu, ir::Attribute::make_string("approximate", "tanh"));
    rw.set_type(gelu->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), gelu->output(0))) rw.erase_node_and_dead_producers(&n);
    else rw.erase_node(gelu);
  }

 private:
  // The leaves of the tree of Muls rooted at n whose inner outputs are read only by the tree.
  static void collect(const ir::Node& n, std::vector<ir::Value*>& leaves, int depth) {
    for (size_t i = 0; i < 2; ++i) {
      ir::Value* v = n.input(i);
      if (!v || n.num_inputs() != 2) {
        leaves.assign(4, nullptr);  // not a binary Mul: no match
        return;
      }
      const ir::Node* inner = depth < 2 ? private_producer(v, "Mul", &n) : nullptr;
      if (inner) collect(*inner, leaves, depth + 1);
      else leaves.push_back(v);
    }
  }

  static ir::DataType elem_type(const ir::Value* x, RuleContext& ctx) {
    if (const ShapeInference* si = ctx.facts())
      if (const ops::TypeInfo* f = si->facts(x); f && f->elem != ir::DataType::kUndefined) return f->elem;
    return x->type.is_tensor() ? x->type.elem : ir::DataType::kUndefined;
  }

  static int64_t known_rank(const ir::Value* x, RuleContext& ctx) {
    if (const ShapeInference* si = ctx.facts())
      if (const ops::TypeInfo* f = si->facts(x); f && f->shape) return f->rank();
    return -1;
  }

  // A one-element constant within rounding of `ref` that cannot broadcast x to a larger shape.
  bool near(const ir::Value* v, double ref) const {
    const ir::Tensor* c = v ? ops::FoldContext::constant(v) : nullptr;
    if (!c || c->numel() != 1 || !c->bytes()) return false;
    if (c->rank() > 0 && (rank_ < 0 || c->rank() > rank_)) return false;
    if (!ir::dtype_is_float(c->dtype()) && ref != std::floor(ref)) return false;
    double d = ops::element_as_double(*c, 0);
    return std::fabs(d - ref) <= tolerance(dtype_) * std::fabs(ref);
  }

  // Whether s is 1 + Erf(x / sqrt(2)) (false) or 1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3))
  // (true), each intermediate read only by the next; nullopt (and why) when it is neither.
  std::optional<bool> one_plus(const ir::Value* s, const ir::Value* x, std::string* why) const {
    const ir::Node* add = is_op(s->producer(), "Add") ? s->producer() : nullptr;
    if (!add || s->is_graph_output() || s->uses().size() != 1) {
      *why = "no factor is 1 + Erf(..) or 1 + Tanh(..) read only by the product";
      return std::nullopt;
    }
    const ir::Value* f = nullptr;
    for (int i = 0; i < 2; ++i)
      if (near(add->input(i), 1.0)) f = add->input(1 - i);
    if (!f) {
      *why = "the Add does not add 1";
      return std::nullopt;
    }
    if (const ir::Node* erf = private_producer(f, "Erf", add)) {
      if (erf_argument(erf->input(0), erf, x)) return false;
      *why = "the Erf does not read x / sqrt(2)";
      return std::nullopt;
    }
    if (const ir::Node* th = private_producer(f, "Tanh", add)) {
      if (tanh_argument(th->input(0), th, x)) return true;
      *why = "the Tanh does not read sqrt(2/pi) * (x + 0.044715 * x^3)";
      return std::nullopt;
    }
    *why = "1 + f where f is neither Erf nor Tanh, or is read elsewhere";
    return std::nullopt;
  }

  // x / sqrt(2) or x * (1 / sqrt(2)), read only by `by`.
  bool erf_argument(const ir::Value* z, const ir::Node* by, const ir::Value* x) const {
    if (const ir::Node* div = private_producer(z, "Div", by))
      return div->input(0) == x && near(div->input(1), std::sqrt(2.0));
    if (const ir::Node* mul = private_producer(z, "Mul", by))
      for (int i = 0; i < 2; ++i)
        if (mul->input(i) == x && near(mul->input(1 - i), 1 / std::sqrt(2.0))) return true;
    return false;
  }

  // sqrt(2/pi) * (x + 0.044715 * x^3), read only by `by`.
  bool tanh_argument(const ir::Value* w, const ir::Node* by, const ir::Value* x) const {
    const ir::Node* mul = private_producer(w, "Mul", by);
    if (!mul) return false;
    for (int i = 0; i < 2; ++i) {
      if (!near(mul->input(i), std::sqrt(2.0 / M_PI))) continue;
      const ir::Node* add = private_producer(mul->input(1 - i), "Add", mul);
      if (!add) return false;
      for (int j = 0; j < 2; ++j) {
        if (add->input(j) != x) continue;
        const ir::Node* scaled = private_producer(add->input(1 - j), "Mul", add);
        if (!scaled) return false;
        for (int k = 0; k < 2; ++k)
          if (near(scaled->input(k), 0.044715) && cube(scaled->input(1 - k), scaled, x)) return true;
        return false;
      }
      return false;
    }
    return false;
  }

  // Pow(x, 3), x * (x * x) or (x * x) * x, read only by `by`.
  bool cube(const ir::Value* v, const ir::Node* by, const ir::Value* x) const {
    if (const ir::Node* pow = private_producer(v, "Pow", by)) return pow->input(0) == x && near(pow->input(1), 3.0);
    const ir::Node* outer = private_producer(v, "Mul", by);
    if (!outer) return false;
    for (int i = 0; i < 2; ++i) {
      if (outer->input(i) != x) continue;
      const ir::Node* sq = private_producer(outer->input(1 - i), "Mul", outer);
      if (sq && sq->input(0) == x && sq->input(1) == x) return true;
    }
    return false;
  }

  int64_t rank_ = -1;
  ir::DataType dtype_ = ir::DataType::kUndefined;
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseGelu, "fuse_gelu",
                       "0.5*x*(1+Erf(x/sqrt(2))) and its tanh form become Gelu (opset >= 20); refuses constants off "
                       "the formula's values, constants that broadcast x, shared intermediates, non-float types");

}  // namespace onnxtrim::passes
