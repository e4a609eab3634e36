// Reshape(InstanceNormalization(Reshape(x, [N, G, -1]), ones[G], zeros[G], eps), x's shape)
//   * gamma + beta                   (gamma, beta: constants per channel, [C, 1, ..] or scalars)
//   -> GroupNormalization(x, gamma[C], beta[C], epsilon = eps, num_groups = G)   (opset >= 21)
// torch's nn.GroupNorm export (torch 1.13 at any opset): x [N, C, ...] is seen as [N, G, K],
// K = C / G * (product of the spatial dims), InstanceNormalization normalizes each (n, g) row
// (its scale of ones and bias of zeros leave the result as is), the second Reshape restores x's
// shape, and the Mul and Add apply the per-channel weight and bias (torch unsqueezes them to
// [C, 1, 1]). Row g of sample n holds, in row-major order, exactly channels g*C/G .. (g+1)*C/G - 1
// of that sample, which is GroupNormalization-21's group; its scale and bias are per channel. The
// Mul and the Add are each optional (affine=False; a Mul by ones or an Add of zeros that
// eliminate_identity_elements removed): a missing one becomes ones or zeros. GroupNormalization
// computes the statistics in float32 (stash_type 1; 11 for a double x, which then stays double)
// where InstanceNormalization computes in x's type, and rounds once: the results may differ in
// the last places (the check compares at its tolerance).
// Off by default (a target rule): ONNX Runtime 1.30 has no GroupNormalization kernel (its
// function body runs, 1.5-3x slower than the InstanceNormalization form: docs/performance.md).
// --target tensorrt / openvino turn it on (passes/targets.cc), and so do --enable and --passes.
// Roots: the last node of the pattern (the bias's Add; the scale's Mul without bias; the second
// Reshape without either). As in fuse_layer_normalization, a match at the Reshape (or the Mul)
// refuses when its output is read only by a Mul (or an Add) of a constant that fits: the whole
// pattern fuses at its last node.
// Refuses: opset < 21 (GroupNormalization-18 takes scale and bias per group); x of unknown rank,
// rank < 2 or an unknown channel count C; a first Reshape whose output is not [x's dim 0, G, K]
// with G a known constant dividing C; an InstanceNormalization scale or bias that is not a
// constant [G] of ones / zeros; a second Reshape whose output dims are not provably x's; a gamma
// or beta that is not a constant of x's element type with one value or C values along x's
// channel axis (1 on every other axis, rank at most x's: one that broadcasts would change the
// output's shape); an intermediate read elsewhere or that is a graph output; element types other
// than float, float16, bfloat16 and double.
#include <optional>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "ops/normalization/normalization_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

struct GroupNormFit {
  ir::Value* x = nullptr;
  const ir::Value* gamma = nullptr;  // null: ones
  const ir::Value* beta = nullptr;   // null: zeros
  int64_t groups = 0;
  int64_t channels = 0;
  int64_t rank = 0;
  float epsilon = 1e-5f;
  ir::DataType elem = ir::DataType::kUndefined;
};

class FuseGroupNormalization final : public Rule<GroupNormFit> {
 public:
  std::vector<std::string> roots() const override { return {"Add", "Mul", "Reshape"}; }

 protected:
  Match<GroupNormFit> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 21)
      return refuse("opset " + std::to_string(ctx.opset()) + " < 21 has no GroupNormalization with per-channel scale");
    if (!n.output(0)) return refuse("no output");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    GroupNormFit m;
    std::string why;
    if (!ends_here(n, *si, m, &why)) return refuse(why);
    // A Mul by a fitting scale (with no scale yet) or an Add of a fitting bias follows: fuse there.
    if (!m.beta) {
      const ir::Value* v = n.output(0);
      const ir::Node* r = v->uses().size() == 1 ? v->uses()[0].node : nullptr;
      const bool add = is_op(r, "Add");
      if ((add || (!m.gamma && is_op(r, "Mul"))) && read_only_by(v, r) && r->num_inputs() == 2 && r->output(0)) {
        const ir::Value* c = r->input(0) == v ? r->input(1) : r->input(0);
        std::string ignored;
        if (c != v && per_channel(c, m, add ? "bias" : "scale", &ignored))
          return refuse(add ? "the Add of a per-channel bias follows: the pattern fuses there"
                            : "the Mul by a per-channel scale follows: the pattern fuses there");
      }
    }
    return m;
  }

  void apply(ir::Node& n, GroupNormFit& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    const std::string base = n.output(0)->name();
    ir::Value* scale = rw.add_initializer(g, channel_vector(m.gamma, 1.0, m), base + "_gn_scale");
    ir::Value* bias = rw.add_initializer(g, channel_vector(m.beta, 0.0, m), base + "_gn_bias");
    ir::Node* gn = rw.insert_node(g, &n, "GroupNormalization", {m.x, scale, bias}, 1, base + "_gn");
    rw.set_attribute(gn, ir::Attribute::make_float("epsilon", m.epsilon));
    rw.set_attribute(gn, ir::Attribute::make_int("num_groups", m.groups));
    if (m.elem == ir::DataType::kDouble)
      rw.set_attribute(gn, ir::Attribute::make_int("stash_type", static_cast<int64_t>(ir::DataType::kDouble)));
    rw.set_type(gn->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), gn->output(0))) {
      rw.erase_node_and_dead_producers(&n);
    } else {
      rw.erase_node(gn);
      rw.remove_initializer(scale);
      rw.remove_initializer(bias);
    }
  }

 private:
  // n is the last node: Add(.., beta), Mul(.., gamma) or the second Reshape.
  static bool ends_here(const ir::Node& n, const ShapeInference& si, GroupNormFit& m, std::string* why) {
    if (is_op(&n, "Reshape")) return restored(n, si, m, why);
    if (n.num_inputs() != 2 || !n.input(0) || !n.input(1)) {
      *why = "not a binary " + n.op_type;
      return false;
    }
    const bool add = is_op(&n, "Add");
    if (!add && !is_op(&n, "Mul")) {
      *why = "not an Add, Mul or Reshape";
      return false;
    }
    *why = add ? "neither operand of the Add is a constant added to the normalized x, read only by it"
               : "neither operand of the Mul is a constant scaling the normalized x, read only by it";
    for (int i = 0; i < 2; ++i) {
      const ir::Value* c = n.input(i);
      if (!ops::FoldContext::constant(c)) continue;
      const ir::Value* inner = n.input(1 - i);
      GroupNormFit f;
      const ir::Node* mul = add ? private_producer(inner, "Mul", &n) : nullptr;
      const ir::Node* reshape = private_producer(add && mul ? nullptr : inner, "Reshape", &n);
      if (mul) {
        // Add(Mul(Reshape(..), gamma), beta): the Mul's constant is gamma.
        bool found = false;
        for (int j = 0; j < 2 && !found; ++j) {
          const ir::Node* r = private_producer(mul->input(1 - j), "Reshape", mul);
          if (!ops::FoldContext::constant(mul->input(j)) || !r) continue;
          found = true;
          if (!restored(*r, si, f, why) || !per_channel(mul->input(j), f, "scale", why)) return false;
          f.gamma = mul->input(j);
        }
        if (!found) {
          *why = "the Add's other operand is a Mul, but not of the restored Reshape by a constant";
          return false;
        }
      } else if (reshape) {
        if (!restored(*reshape, si, f, why)) return false;
      } else {
        continue;
      }
      if (!per_channel(c, f, add ? "bias" : "scale", why)) return false;
      (add ? f.beta : f.gamma) = c;
      m = f;
      return true;
    }
    return false;
  }

  // r = Reshape(InstanceNormalization(Reshape(x, [N, G, K]), ones, zeros), x's shape): fills m
  // but gamma and beta.
  static bool restored(const ir::Node& r, const ShapeInference& si, GroupNormFit& m, std::string* why) {
    const ir::Node* in = private_producer(r.input(0), "InstanceNormalization", &r);
    if (!in) {
      *why = "the Reshape does not read an InstanceNormalization read only by it";
      return false;
    }
    const ir::Node* first = private_producer(in->input(0), "Reshape", in);
    if (!first) {
      *why = "the InstanceNormalization does not read a Reshape read only by it";
      return false;
    }
    ir::Value* x = first->input(0);
    const ops::TypeInfo* fx = si.facts(x);
    const ops::TypeInfo* fg = si.facts(first->output(0));
    const ops::TypeInfo* fr = si.facts(r.output(0));
    if (!fx || !fx->shape || fx->rank() < 2) {
      *why = "x's rank is not known or is below 2";
      return false;
    }
    if (fx->elem != ir::DataType::kFloat && fx->elem != ir::DataType::kFloat16 && fx->elem != ir::DataType::kDouble &&
        fx->elem != ir::DataType::kBFloat16) {
      *why = "the element type is not float, float16, bfloat16 or double";
      return false;
    }
    const ops::SymShape& xs = *fx->shape;
    const std::optional<int64_t> channels = xs[1].constant_value();
    if (!channels || *channels <= 0) {
      *why = "x's channel count is not known";
      return false;
    }
    // The grouped view: [x's dim 0, G, K], G dividing C.
    const std::optional<int64_t> groups =
        fg && fg->shape && fg->rank() == 3 ? (*fg->shape)[1].constant_value() : std::nullopt;
    if (!groups || !((*fg->shape)[0] == xs[0])) {
      *why = "the first Reshape's output is not [x's dim 0, G, K] with a known G";
      return false;
    }
    if (*groups <= 0 || *channels % *groups != 0) {
      *why = "the group count does not divide the channel count";
      return false;
    }
    // The InstanceNormalization adds nothing of its own: scale of ones, bias of zeros, [G].
    for (size_t k = 1; k < 3; ++k) {
      const ir::Tensor* t = in->num_inputs() > k ? ops::FoldContext::constant(in->input(k)) : nullptr;
      const double want = k == 1 ? 1.0 : 0.0;
      bool ok = t && t->bytes() && t->rank() == 1 && t->dims()[0] == *groups;
      if (ok)
        for (double v : ops::norm::to_doubles(*t)) ok = ok && v == want;
      if (!ok) {
        *why = std::string("the InstanceNormalization's ") +
               (k == 1 ? "scale is not a constant of ones" : "bias is not a constant of zeros") + " of the group count";
        return false;
      }
    }
    // The second Reshape gives x's shape back.
    bool same = fr && fr->shape && fr->rank() == fx->rank();
    for (size_t d = 0; same && d < xs.size(); ++d) same = (*fr->shape)[d] == xs[d];
    if (!same) {
      *why = "the second Reshape's output dims are not provably x's";
      return false;
    }
    m.x = x;
    m.groups = *groups;
    m.channels = *channels;
    m.rank = fx->rank();
    m.epsilon = in->attr_float("epsilon", 1e-5f);
    m.elem = fx->elem;
    return true;
  }

  // A constant of x's type holding one value, or C values along x's channel axis (1 elsewhere),
  // of rank at most x's: it scales or shifts channel by channel without broadcasting x.
  static bool per_channel(const ir::Value* v, const GroupNormFit& m, const char* what, std::string* why) {
    const ir::Tensor* t = ops::FoldContext::constant(v);
    if (!t || !t->bytes()) {
      *why = std::string("the ") + what + " is not a constant";
      return false;
    }
    if (t->dtype() != m.elem) {
      *why = std::string("the ") + what + "'s element type differs from x's";
      return false;
    }
    if (t->rank() > m.rank) {
      *why = std::string("the ") + what + " has more dims than x";
      return false;
    }
    for (int64_t i = 0; i < t->rank(); ++i) {
      const int64_t axis = m.rank - t->rank() + i;  // the axis of x it lines up with
      const int64_t d = t->dims()[static_cast<size_t>(i)];
      if (d != 1 && !(axis == 1 && d == m.channels)) {
        *why = std::string("the ") + what + " is not per channel ([C, 1, ..] or one value)";
        return false;
      }
    }
    return true;
  }

  // gamma or beta as a [C] vector (a constant of one value repeated; `fill` when absent).
  static ir::Tensor channel_vector(const ir::Value* v, double fill, const GroupNormFit& m) {
    std::vector<double> out(static_cast<size_t>(m.channels), fill);
    if (v) {
      const std::vector<double> vals = ops::norm::to_doubles(*ops::FoldContext::constant(v));
      for (size_t c = 0; c < out.size(); ++c) out[c] = vals.size() == 1 ? vals[0] : vals[c];
    }
    return ops::norm::from_doubles(m.elem, {m.channels}, out);
  }
};

}  // namespace

ONNXTRIM_REGISTER_TARGET_RULE(FuseGroupNormalization, "fuse_group_normalization",
                              "(--target tensorrt, openvino) torch's GroupNorm export (Reshape, InstanceNormalization "
                              "of ones/zeros, Reshape back, per-channel Mul and Add) becomes GroupNormalization (opset "
                              ">= 21; ONNX Runtime has no kernel for it); refuses scales that broadcast, shapes not "
                              "proved, shared intermediates");

}  // namespace onnxtrim::passes
