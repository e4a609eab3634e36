// w * (x / Sqrt(ReduceMean(x^2, last k axes, keepdims) + eps))
//   -> RMSNormalization(x, w, axis = rank - k, epsilon = eps)
// The RMSNorm of Llama-style models as exporters write it: x^2 as Pow(x, 2) or x * x; the
// division as Div(x, s), x * Div(1, s), x * Reciprocal(s) or x * Pow(mean + eps, -0.5) (s the
// Sqrt). RMSNormalization-23 is this formula over the axes from `axis` on, with eps inside the
// square root; it computes in float32 (stash_type 1), as the float32 decomposition does, and
// rounds once where the decomposition rounds at each step (the check compares at its tolerance).
// HF's float16 (and bfloat16) LlamaRMSNorm computes in float32 between two Casts:
//   w * Cast(Cast(x, to float) / Sqrt(ReduceMean(..^2) + eps), to x's type)
//   -> RMSNormalization(x, w, axis, epsilon)   (stash_type 1, the default)
// which is the op's definition: stage one in float32 (stash_type 1) on x cast to float, the
// normalized value cast back to x's type, then multiplied by the scale in x's type - the same
// two roundings to float16 as the decomposition (the float32 steps may round otherwise, and a
// runtime may skip the middle rounding to float16: at most one unit of float16's precision per
// element, inside the check's float16 tolerance of 4 units).
// Two passes share this matcher, split by x's element type: fuse_rms_normalization takes float
// and double x; fuse_rms_normalization_fp16 (off by default, on for --target tensorrt and
// openvino: passes/targets.cc) takes float16 and bfloat16 x, the Cast-wrapped form above and a
// decomposition written in float16 alike. ONNX Runtime 1.30 runs RMSNormalization-23 on a
// float16 x with a float16 kernel slower than the float32 path it makes of the decomposition
// itself at load (Casts to float and its SimplifiedLayerNormalization): fp16_norms_tiny ran at
// 0.66x the original fused, and 0.87x with the fusion kept in float32 between the Casts
// (docs/performance.md), so no exact form of it is no slower there.
// Refuses: opset < 23; an x that is x' - ReduceMean(x') (a LayerNorm: fuse_layer_normalization,
// which runs first from opset 17, takes it with its bias; counted apart, --opset 23's hint would
// name each LayerNorm twice); a reduction over axes that are not the last ones, keepdims = 0, or axes
// that are not a constant input (an axes attribute is not valid ONNX from opset 18 on: refused, not
// read); eps not a one-element constant >= 0; a scale that is not a constant of
// exactly x's trailing dims (no more than the normalized ones: a scale that broadcasts would
// change the output's shape); an x of unknown rank or dims; an intermediate read elsewhere or
// that is a graph output; element types RMSNormalization does not take; a Cast between the
// normalization and the scale's Mul unless x is Cast(float16 or bfloat16 x, to float) and the Cast
// returns to that type.
#include <algorithm>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/reduce_axes.h"

namespace onnxtrim::passes {
namespace {

struct RmsNorm {
  ir::Value* x = nullptr;
  ir::Value* scale = nullptr;
  int64_t axis = 0;
  float epsilon = 0;
  int64_t opset = 0;  // the model's: how its ReduceMean takes its axes
};

// A one-element constant of value v (within rounding), of rank at most `rank`.
bool scalar_is(const ir::Value* c, double v, int64_t rank) {
  const ir::Tensor* t = c ? ops::FoldContext::constant(c) : nullptr;
  return t && t->numel() == 1 && t->bytes() && t->rank() <= rank && ops::element_as_double(*t, 0) == v;
}

bool rms_half_type(ir::DataType t) { return t == ir::DataType::kFloat16 || t == ir::DataType::kBFloat16; }

// kHalf: the rule of float16/bfloat16 x (fuse_rms_normalization_fp16); else that of float/double x.
template <bool kHalf>
class RmsNormRule final : public Rule<RmsNorm> {
 public:
  std::vector<std::string> roots() const override { return {"Mul"}; }

 protected:
  Match<RmsNorm> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 23) return refuse("opset " + std::to_string(ctx.opset()) + " < 23 has no RMSNormalization");
    if (n.num_inputs() != 2 || !n.output(0)) return refuse("not a binary Mul");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    std::string why = "neither input is x / Sqrt(ReduceMean(x^2) + eps)";
    for (int i = 0; i < 2; ++i) {
      ir::Value* scale = n.input(i);
      if (!ops::FoldContext::constant(scale)) continue;
      RmsNorm m;
      m.scale = scale;
      m.opset = ctx.model().opset("");  // the real one (count_matches pretends another)
      // HF's float16 form: w * Cast(x32 / Sqrt(..), to x's type), x32 = Cast(x, to float).
      const ir::Node* back = private_producer(n.input(1 - i), "Cast", &n);
      if (back ? normalized(back->input(0), back, *si, m, &why) && narrowed(*back, *si, m, &why)
               : normalized(n.input(1 - i), &n, *si, m, &why)) {
        if (!scale_fits(*ops::FoldContext::constant(scale), m, *si, &why)) return refuse(why);
        if (rms_half_type(si->facts(m.x)->elem) != kHalf)
          return refuse(kHalf ? "x is not float16 or bfloat16 (fuse_rms_normalization takes it)"
                              : "x is float16 or bfloat16: fuse_rms_normalization_fp16 takes it (off by default: "
                                "ONNX Runtime's float16 RMSNormalization is slower than the decomposition)");
        return m;
      }
    }
    return refuse(why);
  }

  void apply(ir::Node& n, RmsNorm& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Node* norm =
        rw.insert_node(ctx.graph(), &n, "RMSNormalization", {m.x, m.scale}, 1, n.output(0)->name() + "_rms");
    rw.set_attribute(norm, ir::Attribute::make_int("axis", m.axis));
    rw.set_attribute(norm, ir::Attribute::make_float("epsilon", m.epsilon));
    rw.set_type(norm->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), norm->output(0))) rw.erase_node_and_dead_producers(&n);
    else rw.erase_node(norm);
  }

 private:
  // v = x / Sqrt(ReduceMean(x^2) + eps), each step read only by the next; fills m.x, axis, epsilon.
  static bool normalized(const ir::Value* v, const ir::Node* by, const ShapeInference& si, RmsNorm& m,
                         std::string* why) {
    const ir::Value* s = nullptr;  // Sqrt(mean + eps), or mean + eps itself for Pow(.., -0.5)
    const ir::Node* at = nullptr;  // the node reading s
    bool pow_form = false;
    if (const ir::Node* div = private_producer(v, "Div", by)) {
      m.x = div->input(0);
      s = div->input(1);
      at = div;
    } else if (const ir::Node* mul = private_producer(v, "Mul", by)) {
      for (int i = 0; i < 2 && !s; ++i) {
        const ir::Value* r = mul->input(1 - i);
        if (const ir::Node* d = private_producer(r, "Div", mul); d && scalar_is(d->input(0), 1.0, 1)) {
          s = d->input(1);
          at = d;
        } else if (const ir::Node* rc = private_producer(r, "Reciprocal", mul)) {
          s = rc->input(0);
          at = rc;
        } else if (const ir::Node* p = private_producer(r, "Pow", mul); p && scalar_is(p->input(1), -0.5, 1)) {
          s = p->input(0);
          at = p;
          pow_form = true;
        }
        if (s) m.x = mul->input(i);
      }
    }
    if (!s || !m.x) {
      *why = "no x / Sqrt(..) read only by the scale's Mul";
      return false;
    }
    // x - ReduceMean(x): the centered value of a LayerNorm, which fuse_layer_normalization takes.
    if (const ir::Node* sub = m.x->producer();
        is_op(sub, "Sub") && is_op(sub->input(1) ? sub->input(1)->producer() : nullptr, "ReduceMean") &&
        sub->input(1)->producer()->input(0) == sub->input(0)) {
      *why = "x is x' - ReduceMean(x'): a LayerNorm (fuse_layer_normalization)";
      return false;
    }
    const ir::Value* sum = s;  // mean + eps
    if (!pow_form) {
      const ir::Node* sqrt = private_producer(s, "Sqrt", at);
      if (!sqrt) {
        *why = "the divisor is not a Sqrt read only by the division";
        return false;
      }
      sum = sqrt->input(0);
      at = sqrt;
    }
    const ops::TypeInfo* fx = si.facts(m.x);
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
    const ir::Node* add = private_producer(sum, "Add", at);
    if (!add) {
      *why = "the Sqrt does not read mean + eps, read only by it";
      return false;
    }
    for (int i = 0; i < 2; ++i) {
      const ir::Tensor* eps = ops::FoldContext::constant(add->input(i));
      if (!eps || eps->numel() != 1 || !eps->bytes() || eps->rank() > rank) continue;
      const double e = ops::element_as_double(*eps, 0);
      if (!(e >= 0)) {
        *why = "eps is negative or NaN";
        return false;
      }
      const ir::Node* mean = private_producer(add->input(1 - i), "ReduceMean", add);
      if (!mean) {
        *why = "eps is not added to a ReduceMean read only by the Add";
        return false;
      }
      if (!mean_of_squares(*mean, m.x, rank, m, why)) return false;
      m.epsilon = static_cast<float>(e);
      return true;
    }
    *why = "nothing added to the mean is a one-element constant";
    return false;
  }

  // ReduceMean(x^2) over the last axes, keepdims; sets m.axis.
  static bool mean_of_squares(const ir::Node& mean, const ir::Value* x, int64_t rank, RmsNorm& m, std::string* why) {
    const std::optional<int64_t> axis = trailing_reduce_axis(mean, m.opset, rank, why);
    if (!axis) return false;
    m.axis = *axis;
    const ir::Value* sq = mean.input(0);
    if (const ir::Node* p = private_producer(sq, "Pow", &mean);
        p && p->input(0) == x && scalar_is(p->input(1), 2.0, rank))
      return true;
    if (const ir::Node* p = private_producer(sq, "Mul", &mean); p && p->input(0) == x && p->input(1) == x) return true;
    *why = "the ReduceMean does not read x^2 (Pow(x, 2) or x * x) read only by it";
    return false;
  }

  // The float16 (bfloat16) wrapper: m.x is Cast(x16, to float) and `back` casts the float32
  // normalized value to x16's type; m.x becomes x16.
  static bool narrowed(const ir::Node& back, const ShapeInference& si, RmsNorm& m, std::string* why) {
    const ir::Node* up = m.x->producer();
    const ops::TypeInfo* fx = is_op(up, "Cast") ? si.facts(up->input(0)) : nullptr;
    if (!fx || (fx->elem != ir::DataType::kFloat16 && fx->elem != ir::DataType::kBFloat16) ||
        up->attr_int("to", 0) != static_cast<int64_t>(ir::DataType::kFloat)) {
      *why = "a Cast follows the normalization but x is not Cast(float16 or bfloat16 x, to float)";
      return false;
    }
    if (back.attr_int("to", 0) != static_cast<int64_t>(fx->elem)) {
      *why = "the Cast after the normalization does not return to x's type";
      return false;
    }
    m.x = up->input(0);
    return true;
  }

  // The scale is x's trailing dims exactly, within the normalized ones.
  static bool scale_fits(const ir::Tensor& scale, const RmsNorm& m, const ShapeInference& si, std::string* why) {
    const ops::TypeInfo* fx = si.facts(m.x);
    const int64_t rank = fx->rank();
    if (scale.dtype() != fx->elem || scale.rank() > rank - m.axis) {
      *why = "the scale's type differs from x's, or it has more dims than the normalized ones";
      return false;
    }
    for (int64_t i = 0; i < scale.rank(); ++i) {
      auto d = (*fx->shape)[static_cast<size_t>(rank - scale.rank() + i)].constant_value();
      if (!d || *d != scale.dims()[static_cast<size_t>(i)]) {
        *why = "the scale's dims are not x's trailing dims";
        return false;
      }
    }
    return true;
  }
};

using FuseRmsNormalization = RmsNormRule<false>;
using FuseRmsNormalizationFp16 = RmsNormRule<true>;

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseRmsNormalization, "fuse_rms_normalization",
                       "w * x / Sqrt(ReduceMean(x^2, last axes) + eps) (Div, Reciprocal or Pow -0.5 forms) of a "
                       "float or double x becomes RMSNormalization (opset >= 23); refuses other axes, keepdims 0, "
                       "scales that broadcast, shared intermediates, float16 x (fuse_rms_normalization_fp16)");
ONNXTRIM_REGISTER_TARGET_RULE(FuseRmsNormalizationFp16, "fuse_rms_normalization_fp16",
                              "(--target tensorrt, openvino) the same RMSNorm of a float16 or bfloat16 x, also HF's "
                              "float16 form between Casts to float and back, becomes RMSNormalization (opset >= 23; "
                              "ONNX Runtime runs the float16 op slower than the decomposition)");

}  // namespace onnxtrim::passes
