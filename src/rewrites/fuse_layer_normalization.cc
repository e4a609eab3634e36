// (x - mean) / Sqrt(ReduceMean((x - mean)^2, last k axes) + eps) * scale + bias,
//   mean = ReduceMean(x, the same axes)
//   -> LayerNormalization(x, scale, bias, axis = rank - k, epsilon = eps)
// The decomposed LayerNorm that torch (opset <= 16) and TF exporters write: the square as
// Pow(d, 2) or d * d (d = x - mean); the division as Div(d, s), d * Reciprocal(s), d * Div(1, s)
// or d * Pow(var + eps, -0.5) (s the Sqrt); the scale's Mul and the bias's Add with their
// operands in either order. The bias is optional, and so is the scale (a scale of ones, of x's
// normalized dims, is made for it). LayerNormalization-17 is this formula over the axes from
// `axis` on, with eps inside the square root; it computes the mean and variance in float32
// (stash_type 1) where the decomposition computes in x's type, and rounds once where the
// decomposition rounds at each step: the results may differ in the last places (docs/
// standard_ops.md measured 4.8e-7 on torch's export; the check compares at its tolerance).
// A scale or bias with fewer dims than the normalized axes (the same values along the others)
// is written out to x's normalized dims: older ONNX Runtime releases require their sizes to
// equal the normalized size ("Size of scale and bias (if provided) must match X.shape()[axis:]").
// Roots: the last node of the pattern, which is the bias's Add; the scale's Mul when there is
// no bias; the normalizing Div (or Mul) when there is neither. The driver meets the normalizing
// node (a root of a plain LayerNorm) before the scale's Mul and the bias's Add, and applies at
// once: so a match at the Div/Mul refuses when its output is read only by a Mul by a constant
// that fits as the scale or an Add of a constant that fits as the bias, and a match at the
// scale's Mul when its output is read only by such an Add - exactly when the match at that
// reader succeeds (the rest of the pattern is the same) - and the whole pattern fuses at its
// last node, never in part. When the reader's constant does not fit (or is no constant, or the
// output has other readers, e.g. is a graph output), the pattern up to here fuses alone and the
// Mul or Add stays after the LayerNormalization: the same values.
// Refuses: opset < 17; ReduceMeans over axes that are not the last ones, over axes that are not
// constant (the attribute before opset 18, the second input from 18; the other way round is not
// valid ONNX for the opset and is refused, not read: rewrites/reduce_axes.h), with keepdims = 0 (ONNX
// Runtime #30513 matched that form wrongly), or over different axes; a Sub whose first operand
// is not the x the first ReduceMean averages; eps not a one-element constant >= 0, or added
// outside the square root ((x - mean) / (Sqrt(var) + eps) is another formula); a scale or bias
// that is not a constant of exactly x's trailing dims within the normalized ones (one that
// broadcasts would change the output's shape: ONNX Runtime #25855, #31980) or whose type is not
// x's; an intermediate read elsewhere or that is a graph output; an x of unknown rank or
// normalized dims; element types other than float, float16, bfloat16 and double.
#include <algorithm>
#include <cmath>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/reduce_axes.h"

namespace onnxtrim::passes {
namespace {

struct LayerNormFit {
  ir::Value* x = nullptr;
  ir::Value* scale = nullptr;  // null: a scale of ones
  ir::Value* bias = nullptr;   // null: none
  int64_t axis = 0;
  float epsilon = 0;
  ir::DataType elem = ir::DataType::kUndefined;
  std::vector<int64_t> norm_dims;  // x's dims from axis on
  int64_t opset = 0;               // the model's: how its ReduceMeans take their axes
};

class FuseLayerNormalization final : public Rule<LayerNormFit> {
 public:
  std::vector<std::string> roots() const override { return {"Add", "Mul", "Div"}; }

 protected:
  Match<LayerNormFit> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 17) return refuse("opset " + std::to_string(ctx.opset()) + " < 17 has no LayerNormalization");
    if (n.num_inputs() != 2 || !n.output(0)) return refuse("not a binary " + n.op_type);
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    LayerNormFit m;
    m.opset = ctx.model().opset("");  // the real one (count_matches pretends another)
    std::string why;
    if (!root_fits(n, *si, m, &why)) return refuse(why);
    // Not the last node of the pattern: the Mul of a scale or the Add of a bias follows.
    if (!m.bias) {
      const ir::Value* v = n.output(0);
      const ir::Node* r = v->uses().size() == 1 ? v->uses()[0].node : nullptr;
      const bool add = is_op(r, "Add");
      if ((add || (!m.scale && is_op(r, "Mul"))) && read_only_by(v, r) && r->num_inputs() == 2 && r->output(0)) {
        const ir::Value* c = r->input(0) == v ? r->input(1) : r->input(0);
        const ir::Tensor* t = c != v ? ops::FoldContext::constant(c) : nullptr;
        std::string ignored;
        if (t && fits(*t, m, add ? "bias" : "scale", &ignored))
          return refuse(add ? "the Add of a bias follows: the pattern fuses there"
                            : "the Mul by a scale follows: the pattern fuses there");
      }
    }
    return m;
  }

  void apply(ir::Node& n, LayerNormFit& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    const std::string base = n.output(0)->name();
    std::vector<ir::Value*> made;  // initializers this rewrite adds
    auto full = [&](ir::Value* v, const std::string& hint) {
      const ir::Tensor& t = *ops::FoldContext::constant(v);
      if (t.dims() == m.norm_dims) return v;
      made.push_back(rw.add_initializer(g, written_out(t, m.norm_dims), hint));
      return made.back();
    };
    ir::Value* scale = nullptr;
    if (m.scale) {
      scale = full(m.scale, m.scale->name() + "_ln");
    } else {
      const std::vector<double> ones(static_cast<size_t>(ops::numel_of(m.norm_dims)), 1.0);
      made.push_back(rw.add_initializer(g, ops::norm::from_doubles(m.elem, m.norm_dims, ones), base + "_ln_scale"));
      scale = made.back();
    }
    std::vector<ir::Value*> inputs{m.x, scale};
    if (m.bias) inputs.push_back(full(m.bias, m.bias->name() + "_ln"));
    ir::Node* norm = rw.insert_node(g, &n, "LayerNormalization", inputs, 1, base + "_ln");
    rw.set_attribute(norm, ir::Attribute::make_int("axis", m.axis));
    rw.set_attribute(norm, ir::Attribute::make_float("epsilon", m.epsilon));
    rw.set_type(norm->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), norm->output(0))) {
      rw.erase_node_and_dead_producers(&n);
    } else {
      rw.erase_node(norm);
      for (ir::Value* v : made) rw.remove_initializer(v);
    }
  }

 private:
  // A one-element constant of value v, of rank at most `rank`.
  static bool one_element_is(const ir::Value* c, double v, int64_t rank) {
    const ir::Tensor* t = c ? ops::FoldContext::constant(c) : nullptr;
    return t && t->numel() == 1 && t->bytes() && t->rank() <= rank && ops::element_as_double(*t, 0) == v;
  }

  // The Div or Mul making v, read only by `by`: a candidate normalizing node.
  static const ir::Node* normalizer(const ir::Value* v, const ir::Node* by) {
    if (const ir::Node* d = private_producer(v, "Div", by)) return d;
    return private_producer(v, "Mul", by);
  }

  // n is the last node of the pattern: the bias's Add, the scale's Mul or the normalizing node.
  static bool root_fits(const ir::Node& n, const ShapeInference& si, LayerNormFit& m, std::string* why) {
    if (!is_op(&n, "Add")) return scaled(n, si, m, why) && (!m.scale || fits_value(m.scale, m, "scale", why));
    for (int i = 0; i < 2; ++i) {
      ir::Value* bias = n.input(i);
      if (!ops::FoldContext::constant(bias)) continue;
      const ir::Node* inner = normalizer(n.input(1 - i), &n);
      if (!inner) {
        *why = "the Add does not add a constant to (x - mean) / Sqrt(var + eps) read only by it";
        return false;
      }
      m.bias = bias;
      return scaled(*inner, si, m, why) && (!m.scale || fits_value(m.scale, m, "scale", why)) &&
             fits_value(m.bias, m, "bias", why);
    }
    // No constant operand: say so when the other side is the rest of the pattern.
    for (int i = 0; i < 2; ++i) {
      LayerNormFit tmp;
      tmp.opset = m.opset;
      std::string ignored;
      if (const ir::Node* inner = normalizer(n.input(1 - i), &n); inner && scaled(*inner, si, tmp, &ignored)) {
        *why = "the bias is not a constant";
        return false;
      }
    }
    *why = "neither operand of the Add is a constant bias";
    return false;
  }

  // node is the normalizing node, or the Mul of one by a constant scale (m.scale).
  static bool scaled(const ir::Node& node, const ShapeInference& si, LayerNormFit& m, std::string* why) {
    if (is_op(&node, "Mul")) {
      for (int i = 0; i < 2; ++i) {
        ir::Value* scale = node.input(i);
        if (!ops::FoldContext::constant(scale)) continue;
        const ir::Node* p = normalizer(node.input(1 - i), &node);
        if (!p) {
          *why = "the Mul does not scale (x - mean) / Sqrt(var + eps) read only by it";
          return false;
        }
        m.scale = scale;
        return normalization(*p, si, m, why);
      }
    }
    if (normalization(node, si, m, why)) return true;
    if (is_op(&node, "Mul"))
      for (int i = 0; i < 2; ++i) {
        LayerNormFit tmp;
        tmp.opset = m.opset;
        std::string ignored;
        if (const ir::Node* p = normalizer(node.input(i), &node); p && normalization(*p, si, tmp, &ignored)) {
          *why = "the scale is not a constant";
          return false;
        }
      }
    return false;
  }

  // node = (x - mean) / Sqrt(var + eps) in one of its forms, each intermediate read only by the
  // next (x - mean by the division and the square alone); fills m but the scale and bias.
  static bool normalization(const ir::Node& node, const ShapeInference& si, LayerNormFit& m, std::string* why) {
    const ir::Value* d = nullptr;  // x - mean
    const ir::Value* r = nullptr;  // the divisor (Div), or the factor 1 / Sqrt(..) (Mul)
    if (is_op(&node, "Div")) {
      d = node.input(0);
      r = node.input(1);
    } else if (is_op(&node, "Mul")) {
      for (int i = 0; i < 2 && !d; ++i) {
        const ir::Node* f = node.input(1 - i) ? node.input(1 - i)->producer() : nullptr;
        if (is_op(node.input(i) ? node.input(i)->producer() : nullptr, "Sub") &&
            (is_op(f, "Reciprocal") || is_op(f, "Div") || is_op(f, "Pow"))) {
          d = node.input(i);
          r = node.input(1 - i);
        }
      }
      if (!d) {
        *why = "the Mul is not (x - mean) * 1 / Sqrt(var + eps)";
        return false;
      }
    } else {
      *why = "not a Div or Mul";
      return false;
    }
    const ir::Node* sub = d ? d->producer() : nullptr;
    if (!is_op(sub, "Sub") || sub->num_inputs() != 2) {
      *why = "the value normalized is not x - mean (a Sub)";
      return false;
    }
    ir::Value* x = sub->input(0);
    const ops::TypeInfo* fx = si.facts(x);
    if (!fx || !fx->shape || fx->rank() < 1) {
      *why = "x's rank is not known";
      return false;
    }
    const int64_t rank = fx->rank();
    if (fx->elem != ir::DataType::kFloat && fx->elem != ir::DataType::kFloat16 && fx->elem != ir::DataType::kDouble &&
        fx->elem != ir::DataType::kBFloat16) {
      *why = "the element type is not float, float16, bfloat16 or double";
      return false;
    }
    // The divisor: s = Sqrt(var + eps) (or var + eps itself under Pow(.., -0.5)), read by `at`.
    const ir::Value* s = nullptr;
    const ir::Node* at = nullptr;
    bool pow_form = false;
    if (is_op(&node, "Div")) {
      s = r;
      at = &node;
    } else if (const ir::Node* q = private_producer(r, "Div", &node); q && one_element_is(q->input(0), 1.0, rank)) {
      s = q->input(1);
      at = q;
    } else if (const ir::Node* rc = private_producer(r, "Reciprocal", &node)) {
      s = rc->input(0);
      at = rc;
    } else if (const ir::Node* p = private_producer(r, "Pow", &node); p && one_element_is(p->input(1), -0.5, rank)) {
      s = p->input(0);
      at = p;
      pow_form = true;
    } else {
      *why = "the factor is not 1 / Sqrt(..) (Reciprocal, Div(1, ..) or Pow(.., -0.5)) read only by the Mul";
      return false;
    }
    const ir::Value* sum = s;  // var + eps
    if (!pow_form) {
      const ir::Node* sqrt = private_producer(s, "Sqrt", at);
      if (!sqrt) {
        const ir::Node* outside = private_producer(s, "Add", at);
        auto made_by_sqrt = [](const ir::Value* v) { return v && is_op(v->producer(), "Sqrt"); };
        if (outside && (made_by_sqrt(outside->input(0)) || made_by_sqrt(outside->input(1))))
          *why = "eps is added outside the square root";
        else *why = "the divisor is not a Sqrt read only by the division";
        return false;
      }
      sum = sqrt->input(0);
      at = sqrt;
    }
    const ir::Node* add = private_producer(sum, "Add", at);
    if (!add || add->num_inputs() != 2) {
      *why = "the Sqrt does not read var + eps, read only by it";
      return false;
    }
    // eps, and the variance it is added to.
    const ir::Node* var = nullptr;
    double eps = 0;
    for (int i = 0; i < 2 && !var; ++i) {
      const ir::Tensor* e = ops::FoldContext::constant(add->input(i));
      if (!e || e->numel() != 1 || !e->bytes() || e->rank() > rank) continue;
      eps = ops::element_as_double(*e, 0);
      if (!(eps >= 0)) {
        *why = "eps is negative or NaN";
        return false;
      }
      if (!std::isfinite(static_cast<float>(eps))) {
        *why = "eps is not a finite float";
        return false;
      }
      var = private_producer(add->input(1 - i), "ReduceMean", add);
      if (!var) {
        *why = "eps is not added to a ReduceMean read only by the Add";
        return false;
      }
    }
    if (!var) {
      *why = "nothing added to the variance is a one-element constant (of at most x's rank)";
      return false;
    }
    // The variance: the mean of d^2.
    const ir::Node* sq = private_producer(var->input(0), "Pow", var);
    if (sq && !(sq->input(0) == d && one_element_is(sq->input(1), 2.0, rank))) sq = nullptr;
    if (!sq) {
      sq = private_producer(var->input(0), "Mul", var);
      if (sq && !(sq->input(0) == d && sq->input(1) == d)) sq = nullptr;
    }
    if (!sq) {
      *why = "the variance is not the mean of (x - mean)^2 (Pow(.., 2) or a product) read only by it";
      return false;
    }
    // x - mean, read by the division and the square alone.
    if (d->is_graph_output() || !std::all_of(d->uses().begin(), d->uses().end(),
                                             [&](const ir::Use& u) { return u.node == &node || u.node == sq; })) {
      *why = "x - mean is read elsewhere or is a graph output";
      return false;
    }
    const ir::Node* mean = private_producer(sub->input(1), "ReduceMean", sub);
    if (!mean) {
      *why = "the Sub does not subtract a ReduceMean read only by it";
      return false;
    }
    if (mean->input(0) != x) {
      *why = "the mean subtracted is not of the Sub's first operand";
      return false;
    }
    const std::optional<int64_t> mean_axis = trailing_reduce_axis(*mean, m.opset, rank, why);
    if (!mean_axis) return false;
    const std::optional<int64_t> var_axis = trailing_reduce_axis(*var, m.opset, rank, why);
    if (!var_axis) return false;
    if (*mean_axis != *var_axis) {
      *why = "the two ReduceMeans reduce different axes";
      return false;
    }
    m.norm_dims.clear();
    for (int64_t i = *mean_axis; i < rank; ++i) {
      std::optional<int64_t> v = (*fx->shape)[static_cast<size_t>(i)].constant_value();
      if (!v) {
        *why = "x's normalized dims are not known";
        return false;
      }
      m.norm_dims.push_back(*v);
    }
    m.x = x;
    m.axis = *mean_axis;
    m.epsilon = static_cast<float>(eps);
    m.elem = fx->elem;
    return true;
  }

  static bool fits_value(const ir::Value* v, const LayerNormFit& m, const char* what, std::string* why) {
    return fits(*ops::FoldContext::constant(v), m, what, why);
  }

  // A scale or bias of x's type whose dims are x's trailing dims, within the normalized ones.
  static bool fits(const ir::Tensor& t, const LayerNormFit& m, const char* what, std::string* why) {
    if (t.dtype() != m.elem) {
      *why = std::string("the ") + what + "'s element type differs from x's";
      return false;
    }
    const auto k = static_cast<int64_t>(m.norm_dims.size());
    if (t.rank() > k) {
      *why = std::string("the ") + what + " has more dims than the normalized axes";
      return false;
    }
    if (!std::equal(t.dims().begin(), t.dims().end(), m.norm_dims.end() - t.rank())) {
      *why = std::string("the ") + what + "'s dims are not x's trailing dims";
      return false;
    }
    if (t.dims() != m.norm_dims && !t.bytes()) {  // to be written out, its values must be at hand
      *why = std::string("the ") + what + "'s values are not available";
      return false;
    }
    return true;
  }

  // t (x's trailing dims) written out to all the normalized dims.
  static ir::Tensor written_out(const ir::Tensor& t, const std::vector<int64_t>& dims) {
    const std::vector<double> v = ops::norm::to_doubles(t);
    std::vector<double> out(static_cast<size_t>(ops::numel_of(dims)));
    ops::BroadcastIndex it(t.dims(), dims);
    for (size_t i = 0; i < out.size(); ++i, it.next()) out[i] = v[static_cast<size_t>(it.offset())];
    return ops::norm::from_doubles(t.dtype(), dims, out);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseLayerNormalization, "fuse_layer_normalization",
    "(x - mean) / Sqrt(ReduceMean((x - mean)^2, last axes) + eps) * scale + bias (Div, Reciprocal or "
    "Pow -0.5 forms; scale and bias optional) becomes LayerNormalization (opset >= 17); refuses other "
    "axes, keepdims 0, eps outside the root, scales or biases that broadcast, shared intermediates");

}  // namespace onnxtrim::passes
