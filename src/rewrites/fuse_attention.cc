// Softmax(scale * Q Kᵀ + bias) V                          -> Attention(Q, K, V; scale, is_causal)
// with a KV cache, K = Concat(past_k, k, axis 2), V = Concat(past_v, v, axis 2)
//                                                        -> Attention(Q, k, v, , past_k, past_v)
//                                                           (its present outputs replace the Concats)
// Scaled dot-product attention as exporters write it, in the BNSH layout (Q [B, Hq, S, D], K and
// V [B, Hkv, T, D] after the heads' Reshape and Transpose), which Attention-23 takes as it is:
// - Kᵀ is a Transpose of K (the last two axes swapped, or any perm whose swap is a perm that is
//   then written as a Transpose of its own); scale is the product of the constants scaling the
//   scores (Div or Mul), Q and Kᵀ (Mul or Div by a one-element constant), 1 when none does.
// - Grouped-query attention: K and V repeated to Hq heads by HF's repeat_kv (Unsqueeze at axis
//   2, Expand to [B, Hkv, n, T, D], Reshape to [B, Hkv * n, T, D]: query head h reads KV head
//   h / n, as Attention does) are taken before the repeat.
// - bias: none, or a causal mask: Where(cols > rows, NEG, scores), or scores + Where(cols >
//   rows, NEG, 0) (the comparison written as Greater, Less, or their negation with the
//   branches swapped), where cols = Range(0, T, 1) along the key axis and rows = Range(0, S, 1)
//   + P (or Range(P, .., 1)) along the query axis, with P proved to be the cache's length (0
//   without a cache). That is is_causal 1 (bottom-right: query i sees keys j <= i + P), which
//   never masks a whole row. NEG is -inf or at most -1e4: the decomposition gives a masked key
//   the weight exp(NEG - max), zero in float32 unless the row's scores span more than
//   |NEG| - 104.
//   The same mask proved from other forms of the comparison: torch's masked_fill(~tril(ones(S,
//   S)), NEG) (Trilu of a splat of true with diagonal k, through Nots and Casts to bool: lower
//   keeps key <= query + k, so k = P; upper keeps key >= query + k, so k = P + 1); HF GPT-2's
//   registered buffer bias[:, :, T - S : T, :T] (Slices of a constant [1, .., M, M] read element
//   by element to be lower-triangular, rows [P, T), columns [0, T), T = P + S: exact where the
//   original runs, since for T > M its Where cannot broadcast M columns to T); a mask folded to
//   a constant (static shapes), read element by element.
//   Other boolean masks are refused, whatever the fill: a row they mask whole gives NaN (-inf)
//   or the mean of V (finfo.min, -1e4) in the decomposition, and 0 in Attention-23 (the spec's
//   fully-masked-row rule for a boolean mask; ONNX Runtime 1.30 writes 0 also for a float mask
//   of finfo.min or -inf on the whole row).
// - The scale may also follow the mask (GPT-J: Softmax(Where(mask, Q Kᵀ, NEG) / c)): the Div
//   is per element, so it is the scale with NEG / c as the fill, which must still be -inf or at
//   most -1e4.
// - Readers of a cache's Concats besides the pattern (HF GPT-2's Shape(present) feeding the
//   mask's slice bounds) are allowed when they go with the pattern (erased with it).
// Attention scales Q and K by sqrt(scale) each where the decomposition scales once, and rounds
// its softmax once: the results differ by rounding, which the check compares at its tolerance.
// Refuses: opset < 23; Softmax on another axis than the last; a scale that is not a positive
// one-element constant; Q, K, V not rank 4 with constant head counts and head size, batch and
// lengths that do not match, Hq not a multiple of Hkv; any other mask (padding masks and masks
// read from inputs can mask a whole row, where Attention writes 0 and the decomposition does
// not); a cache whose Concat output is read by anything else than the pattern (and the graph's
// outputs, and readers that die with the pattern); an intermediate read elsewhere or that is a
// graph output; element types Attention does not take.
#include <cmath>
#include <limits>
#include <map>
#include <unordered_set>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"

namespace onnxtrim::passes {
namespace {

using ops::SymShape;
using symbolic::Expr;

struct Attention {
  ir::Value* q = nullptr;
  ir::Value* k = nullptr;  // BNSH; null when k_from (read through k_perm) is to be transposed
  ir::Value* k_from = nullptr;
  std::vector<int64_t> k_perm;
  ir::Value* v = nullptr;
  ir::Node* cache_k = nullptr;  // Concat(past_k, k): absorbed as past/present
  ir::Node* cache_v = nullptr;
  bool causal = false;
  double scale = 1;
};

// The value of a one-element constant.
std::optional<double> scalar(const ir::Value* v) {
  const ir::Tensor* t = v ? ops::FoldContext::constant(v) : nullptr;
  if (!t || t->numel() != 1 || !t->bytes() || t->rank() > 4) return std::nullopt;
  return ops::element_as_double(*t, 0);
}

// The one element of a scalar (or one-element) integer value, as an expression.
std::optional<Expr> scalar_expr(const ShapeInference& si, const ir::Value* v) {
  const ops::TypeInfo* f = v ? si.facts(v) : nullptr;
  if (!f || !f->values || f->values->size() != 1) return std::nullopt;
  return (*f->values)[0];
}

const SymShape* shape_of(const ShapeInference& si, const ir::Value* v) {
  const ops::TypeInfo* f = v ? si.facts(v) : nullptr;
  return f && f->shape ? &*f->shape : nullptr;
}

bool is_one(const Expr& e) { return e.constant_value() == 1; }

class FuseAttention final : public Rule<Attention> {
 public:
  std::vector<std::string> roots() const override { return {"MatMul"}; }

 protected:
  Match<Attention> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 23) return refuse("opset " + std::to_string(ctx.opset()) + " < 23 has no Attention");
    const ir::Node* softmax = private_producer(n.input(0), "Softmax", &n);
    if (!softmax) return refuse("the MatMul does not read a Softmax read only by it");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    const SymShape* ps = shape_of(*si, softmax->output(0));
    if (!ps || ps->size() != 4) return refuse("the scores are not of rank 4");
    const int64_t axis = softmax->attr_int("axis", -1);
    if (axis != -1 && axis != 3) return refuse("the Softmax is not over the last axis");

    Attention m;
    // The scores' producer chain: an optional mask, then the scale, then Q Kᵀ.
    const ir::Value* x = softmax->input(0);
    const ir::Node* at = softmax;
    const ir::Value* cond = nullptr;   // the causal comparison
    const ir::Value* added = nullptr;  // the mask the scores' Add reads
    bool neg_when_true = false;        // Where puts NEG where cond holds
    // GPT-J scales after masking: Softmax(Where(mask, s, NEG) / c) = Softmax(Where(mask, s / c,
    // NEG / c)) (the Div is per element), so the scale moves inside and NEG becomes NEG / c.
    double outer = 1;
    for (const char* op : {"Div", "Mul"}) {
      const ir::Node* d = private_producer(x, op, at);
      if (!d) continue;
      int k = op[0] == 'D' ? (scalar(d->input(1)) ? 1 : -1) : scalar(d->input(1)) ? 1 : scalar(d->input(0)) ? 0 : -1;
      const ir::Value* inner = k >= 0 ? d->input(static_cast<size_t>(1 - k)) : nullptr;
      if (!inner || !(private_producer(inner, "Where", d) || private_producer(inner, "Add", d))) continue;
      double c = *scalar(d->input(static_cast<size_t>(k)));
      if (!(c > 0) || !std::isfinite(c))
        return refuse("the masked scores are scaled by something else than a positive constant");
      outer = op[0] == 'D' ? 1 / c : c;
      m.scale = outer;
      x = inner;
      at = d;
      break;
    }
    if (const ir::Node* w = private_producer(x, "Where", at)) {
      int neg = branch_with_neg(*w, 1, 2, outer);
      if (neg < 0) return refuse("the Where's other branch is not a constant of -inf or at most -1e4");
      cond = w->input(0);
      neg_when_true = neg == 1;
      x = w->input(neg == 1 ? 2 : 1);
      at = w;
    } else if (const ir::Node* add = private_producer(x, "Add", at)) {
      for (int i = 0; i < 2 && !cond; ++i) {
        const ir::Value* mv = add->input(i);
        const ir::Node* w = mv ? mv->producer() : nullptr;
        while (is_op(w, "Unsqueeze") && w->input(0)) w = w->input(0)->producer();
        if (!is_op(w, "Where") || w->num_inputs() != 3) continue;
        int neg = branch_with_neg(*w, 1, 2, outer);
        if (neg < 0) continue;
        auto zero = scalar(w->input(neg == 1 ? 2 : 1));
        if (!zero || *zero != 0) continue;
        cond = w->input(0);
        added = mv;
        neg_when_true = neg == 1;
        x = add->input(1 - i);
        at = add;
      }
      if (!cond) return refuse("the scores' Add is not of a causal mask Where(cond, NEG, 0)");
    }
    const SymShape* xs = shape_of(*si, x);
    // A Where whose mask's dims are not known (a slice of a buffer) has no known shape either:
    // the mask's proof below gives its shape, [1, .., S, T], which keeps the scores' shape.
    const bool shape_by_mask = xs && *xs != *ps && cond && !added;
    if (!xs || (*xs != *ps && !shape_by_mask)) return refuse("the mask broadcasts the scores to another shape");
    // The scale on the scores.
    if (const ir::Node* d = private_producer(x, "Div", at)) {
      auto c = scalar(d->input(1));
      if (!c || !(*c > 0) || !std::isfinite(*c))
        return refuse("the scores are divided by something else than a positive constant");
      m.scale /= *c;
      x = d->input(0);
      at = d;
    } else if (const ir::Node* mul = private_producer(x, "Mul", at)) {
      int k = scalar(mul->input(1)) ? 1 : scalar(mul->input(0)) ? 0 : -1;
      if (k < 0) return refuse("the scores are multiplied by something else than a one-element constant");
      m.scale *= *scalar(mul->input(k));
      x = mul->input(1 - k);
      at = mul;
    }
    const ir::Node* qk = private_producer(x, "MatMul", at);
    if (!qk) return refuse("the Softmax does not read (a scale of) a MatMul read only by it");
    ir::Value* q = qk->input(0);
    ir::Value* kt = qk->input(1);
    if (!scaled_operand(q, qk, m.scale) || !scaled_operand(kt, qk, m.scale))
      return refuse("Q or Kᵀ is scaled by something else than a one-element constant");
    if (!(m.scale > 0) || !std::isfinite(m.scale)) return refuse("the scale is not positive");
    m.q = q;
    // K from Kᵀ.
    const ir::Node* k_reader = nullptr;
    if (const ir::Node* t = private_producer(kt, "Transpose", qk)) {
      k_reader = t;
      std::vector<int64_t> perm = t->attr_ints("perm");
      if (perm.size() != 4) return refuse("Kᵀ is not a Transpose of rank 4");
      std::swap(perm[2], perm[3]);
      if (perm == std::vector<int64_t>{0, 1, 2, 3}) {
        m.k = t->input(0);
      } else {
        m.k_from = t->input(0);
        m.k_perm = perm;
      }
    } else {
      m.k_from = kt;
      m.k_perm = {0, 1, 3, 2};
    }
    m.v = n.input(1);
    const ir::Node* v_reader = &n;
    if (m.k) m.k = strip_repeat(m.k, *si, k_reader);
    m.v = strip_repeat(m.v, *si, v_reader);

    // Shapes: Q [B, Hq, S, D], K [B, Hkv, T, D], V [B, Hkv, T, Dv].
    const ir::Value* kv = m.k ? m.k : m.k_from;
    const ops::TypeInfo* fq = si->facts(m.q);
    const ops::TypeInfo* fk = si->facts(kv);
    const ops::TypeInfo* fv = si->facts(m.v);
    if (!fq || !fk || !fv || fq->rank() != 4 || fk->rank() != 4 || fv->rank() != 4)
      return refuse("Q, K or V is not of known rank 4");
    if (fq->elem != fk->elem || fq->elem != fv->elem ||
        (fq->elem != ir::DataType::kFloat && fq->elem != ir::DataType::kFloat16 &&
         fq->elem != ir::DataType::kBFloat16 && fq->elem != ir::DataType::kDouble))
      return refuse("Q, K and V are not of one float type");
    SymShape qs = *fq->shape, ks = *fk->shape, vs = *fv->shape;
    if (!m.k) {  // K as the new Transpose will make it
      SymShape t(4);
      for (int i = 0; i < 4; ++i) t[i] = ks[static_cast<size_t>(m.k_perm[static_cast<size_t>(i)])];
      ks = t;
    }
    auto hq = qs[1].constant_value(), hkv = ks[1].constant_value(), d = qs[3].constant_value(),
         dv = vs[3].constant_value();
    if (!hq || !hkv || !d || !dv || *hkv <= 0 || *hq % *hkv != 0)
      return refuse("the head counts or head sizes are not constants with Hq a multiple of Hkv");
    if (ks[3] != qs[3] || vs[1] != ks[1] || ks[0] != qs[0] || vs[0] != qs[0] || vs[2] != ks[2])
      return refuse("Q, K and V do not agree on batch, heads, length or head size");
    const SymShape* out = shape_of(*si, n.output(0));
    if (shape_by_mask) {
      // The probabilities are the scores' shape once the mask is proved; the MatMul's output
      // is [B, Hq, S, Dv] when the V it reads is [B, Hq, T, Dv].
      const SymShape* vr = shape_of(*si, n.input(1));
      if (*xs != SymShape{qs[0], qs[1], qs[2], ks[2]} || !vr || *vr != SymShape{qs[0], qs[1], ks[2], vs[3]})
        return refuse("the MatMul's output is not [B, Hq, S, Dv]");
    } else if (!out || *out != SymShape{qs[0], qs[1], qs[2], vs[3]}) {
      return refuse("the MatMul's output is not [B, Hq, S, Dv]");
    }

    // A KV cache: K and V are Concats of a past and the new entries, read by the pattern alone.
    Expr past = Expr::constant(0);
    if (m.k) {
      m.cache_k = cache_concat(m.k, k_reader);
      m.cache_v = cache_concat(m.v, v_reader);
      if (m.cache_k && m.cache_v && !others_die(n, m, k_reader, v_reader)) m.cache_k = m.cache_v = nullptr;
      if (!m.cache_k || !m.cache_v) {
        m.cache_k = m.cache_v = nullptr;
      } else {
        const SymShape* pk = shape_of(*si, m.cache_k->input(0));
        const SymShape* pv = shape_of(*si, m.cache_v->input(0));
        if (!pk || !pv || pk->size() != 4 || pv->size() != 4 || (*pk)[2] != (*pv)[2]) {
          m.cache_k = m.cache_v = nullptr;
        } else {
          past = (*pk)[2];
        }
      }
    }
    if (cond) {
      std::string why;
      if (!causal(cond, neg_when_true, qs[2], ks[2], past, *si, &why))
        return refuse("the mask is not a causal mask: " + why);
      // The added mask keeps the comparison's [S, T] as its last two axes (Unsqueezes in front only).
      if (added && !last_two_are(added, qs[2], ks[2], *si))
        return refuse("the mask is not a causal mask: its shape is not [.., S, T]");
      if (!m.cache_k && past.constant_value() != 0)
        return refuse("a causal mask with an offset needs the cache as past/present");
      m.causal = true;
    }
    if (!keeps_names(n, m)) return refuse("an output the fusion replaces is the graph's output twice");
    return m;
  }

  void apply(ir::Node& n, Attention& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    std::string hint = n.output(0)->name() + "_attention";
    ir::Value* k = m.k;
    if (!k) {
      ir::Node* t = rw.insert_node(g, &n, "Transpose", {m.k_from}, 1, hint + "_k");
      rw.set_attribute(t, ir::Attribute::make_ints("perm", m.k_perm));
      k = t->output(0);
    }
    std::vector<ir::Value*> inputs{m.q, k, m.v};
    if (m.cache_k)
      inputs = {m.q, m.cache_k->input(1), m.cache_v->input(1), nullptr, m.cache_k->input(0), m.cache_v->input(0)};
    ir::Node* att = rw.insert_node(g, &n, "Attention", inputs, m.cache_k ? 3 : 1, hint);
    rw.set_attribute(att, ir::Attribute::make_float("scale", static_cast<float>(m.scale)));
    if (m.causal) rw.set_attribute(att, ir::Attribute::make_int("is_causal", 1));
    rw.set_type(att->output(0), n.output(0)->type);
    rw.replace_all_uses_with(n.output(0), att->output(0));
    if (m.cache_k) {
      rw.set_type(att->output(1), m.cache_k->output(0)->type);
      rw.set_type(att->output(2), m.cache_v->output(0)->type);
      rw.replace_all_uses_with(m.cache_k->output(0), att->output(1));
      rw.replace_all_uses_with(m.cache_v->output(0), att->output(2));
    }
    rw.erase_node_and_dead_producers(&n);
    if (m.cache_k) {
      rw.erase_node(m.cache_k);
      rw.erase_node(m.cache_v);
    }
  }

 private:
  // The new outputs are plain node outputs of n's graph, which take over a graph output's name
  // (Rewriter::replace_all_uses_with) unless it is the graph's output more than once.
  static bool keeps_names(const ir::Node& n, const Attention& m) {
    auto ok = [](const ir::Value* v) {
      if (!v->is_graph_output()) return true;
      int count = 0;
      for (const ir::Value* o : v->graph()->outputs()) count += o == v;
      return count == 1;
    };
    if (!ok(n.output(0))) return false;
    return !m.cache_k || (ok(m.cache_k->output(0)) && ok(m.cache_v->output(0)));
  }

  // Which of w's branches a and b is the NEG constant (1 or 2), or -1; outer scales it after
  // the Where.
  static int branch_with_neg(const ir::Node& w, int a, int b, double outer) {
    for (int i : {a, b}) {
      auto c = scalar(w.input(static_cast<size_t>(i)));
      if (c && (std::isinf(*c) ? *c < 0 : *c * outer <= -1e4)) return i;
    }
    return -1;
  }

  // v is read by `by`, possibly through a Mul or Div by a one-element constant (the scale,
  // folded into `scale`); v becomes what is scaled.
  static bool scaled_operand(ir::Value*& v, const ir::Node* by, double& scale) {
    if (const ir::Node* d = private_producer(v, "Div", by)) {
      auto c = scalar(d->input(1));
      if (!c || *c == 0) return false;
      scale /= *c;
      v = d->input(0);
    } else if (const ir::Node* mul = private_producer(v, "Mul", by)) {
      int k = scalar(mul->input(1)) ? 1 : scalar(mul->input(0)) ? 0 : -1;
      if (k < 0) return false;
      scale *= *scalar(mul->input(static_cast<size_t>(k)));
      v = mul->input(static_cast<size_t>(1 - k));
    }
    return true;
  }

  // HF's repeat_kv: Reshape(Expand(Unsqueeze(kv, 2), [B, H, n, T, D]), [B, H * n, T, D]), each
  // read only by the next; returns kv (and sets reader to the Unsqueeze), or v as it is.
  static ir::Value* strip_repeat(ir::Value* v, const ShapeInference& si, const ir::Node*& reader) {
    const ir::Node* reshape = private_producer(v, "Reshape", reader);
    if (!reshape) return v;
    const ir::Node* expand = private_producer(reshape->input(0), "Expand", reshape);
    if (!expand) return v;
    const ir::Node* unsq = private_producer(expand->input(0), "Unsqueeze", expand);
    if (!unsq) return v;
    std::vector<int64_t> axes;
    if (const ir::Attribute* a = unsq->attr("axes")) axes = a->ints;
    else if (const ir::Tensor* t = unsq->input(1) ? ops::FoldContext::constant(unsq->input(1)) : nullptr)
      axes = ops::to_int64_vector(*t);
    if (axes.size() != 1 || (axes[0] != 2 && axes[0] != -3)) return v;
    ir::Value* kv = unsq->input(0);
    const SymShape* s = shape_of(si, kv);
    const SymShape* e = shape_of(si, expand->output(0));
    const SymShape* r = shape_of(si, v);
    if (!s || !e || !r || s->size() != 4 || e->size() != 5 || r->size() != 4) return v;
    const SymShape& S = *s;
    const SymShape& E = *e;
    const SymShape& R = *r;
    if (E[0] != S[0] || E[1] != S[1] || E[3] != S[2] || E[4] != S[3]) return v;
    if (R[0] != S[0] || R[1] != S[1] * E[2] || R[2] != S[2] || R[3] != S[3]) return v;
    reader = unsq;
    return kv;
  }

  // The Concat(past, new, axis 2) making v, when `reader` reads v (others_die says whether
  // its other readers go with the pattern).
  static ir::Node* cache_concat(ir::Value* v, const ir::Node* reader) {
    ir::Node* c = v ? v->producer() : nullptr;
    if (!is_op(c, "Concat") || c->num_inputs() != 2 || !c->input(0) || !c->input(1)) return nullptr;
    int64_t axis = c->attr_int("axis", 0);
    if (axis != 2 && axis != -2) return nullptr;
    for (const auto& u : v->uses())
      if (u.node == reader) return c;
    return nullptr;
  }

  // Every reader of the cache's Concats besides the pattern (HF GPT-2's Shape(present) giving
  // the mask's slice bounds) is erased with the pattern: apply erases n and the producers left
  // without readers, as Rewriter::erase_node_and_dead_producers does, and the nodes making
  // what the Attention reads stay. A reader that stayed would read the Attention's present
  // output before the Attention (a cycle when the Attention reads it).
  static bool others_die(const ir::Node& n, const Attention& m, const ir::Node* k_reader, const ir::Node* v_reader) {
    std::unordered_set<const ir::Node*> kept{m.cache_k, m.cache_v};
    for (const ir::Value* v : {m.q, m.cache_k->input(0), m.cache_k->input(1), m.cache_v->input(0), m.cache_v->input(1)})
      if (v && v->producer()) kept.insert(v->producer());
    std::unordered_set<const ir::Node*> dead{&n};
    std::vector<const ir::Node*> work{&n};
    while (!work.empty()) {
      const ir::Node* cur = work.back();
      work.pop_back();
      for (const ir::Value* in : cur->inputs()) {
        const ir::Node* p = in ? in->producer() : nullptr;
        if (!p || dead.count(p) || kept.count(p)) continue;
        bool all = true;
        for (const ir::Value* o : p->outputs()) {
          if (!o) continue;
          if (o->is_graph_output()) all = false;
          for (const auto& u : o->uses()) all = all && dead.count(u.node);
        }
        if (all) {
          dead.insert(p);
          work.push_back(p);
        }
      }
    }
    for (const ir::Node* c : {m.cache_k, m.cache_v})
      for (const auto& u : c->output(0)->uses())
        if (u.node != k_reader && u.node != v_reader && !dead.count(u.node)) return false;
    return true;
  }

  // v is [1, .., 1, S, T].
  static bool last_two_are(const ir::Value* v, const Expr& S, const Expr& T, const ShapeInference& si) {
    const SymShape* s = shape_of(si, v);
    if (!s || s->size() < 2 || s->size() > 4 || (*s)[s->size() - 2] != S || (*s)[s->size() - 1] != T) return false;
    for (size_t i = 0; i + 2 < s->size(); ++i)
      if (!is_one((*s)[i])) return false;
    return true;
  }

  // cond (after Unsqueezes that keep its last two axes) compares cols = Range(0, T, 1) along
  // the last axis with rows = Range(0, S, 1) + P along the one before, so that the NEG branch
  // is taken exactly where col > row.
  static bool causal(const ir::Value* cond, bool neg_when_true, const Expr& S, const Expr& T, const Expr& P,
                     const ShapeInference& si, std::string* why) {
    if (const ir::Tensor* t = ops::FoldContext::constant(cond))
      return constant_triangle(*t, neg_when_true, S, T, P, why);
    if (auto sliced = sliced_triangle(cond, neg_when_true, S, T, P, si, why)) return *sliced;
    const SymShape* cs = shape_of(si, cond);
    if (!cs || cs->size() < 2 || cs->size() > 4 || (*cs)[cs->size() - 2] != S || (*cs)[cs->size() - 1] != T) {
      *why = "its shape is not [.., S, T]";
      return false;
    }
    for (size_t i = 0; i + 2 < cs->size(); ++i)
      if (!is_one((*cs)[i])) {
        *why = "it differs across batches or heads";
        return false;
      }
    const ir::Node* c = cond->producer();
    while (is_op(c, "Unsqueeze") && c->input(0)) {
      const SymShape* in = shape_of(si, c->input(0));
      if (!in || in->size() < 2 || (*in)[in->size() - 2] != S || (*in)[in->size() - 1] != T) break;
      c = c->input(0)->producer();
    }
    if (is_op(c, "Not") || is_op(c, "Cast") || is_op(c, "Trilu"))
      return triangle(c->output(0), neg_when_true, S, T, P, si, why);
    if (!c || !c->is_default_domain() || c->num_inputs() != 2) {
      *why = "no comparison of key and query positions";
      return false;
    }
    // col > row holds where: Greater(col, row), Less(row, col); col <= row where:
    // LessOrEqual(col, row), GreaterOrEqual(row, col).
    int col_at = -1;
    bool true_means_masked = false;
    if (c->op_type == "Greater") col_at = 0, true_means_masked = true;
    else if (c->op_type == "Less") col_at = 1, true_means_masked = true;
    else if (c->op_type == "LessOrEqual") col_at = 0;
    else if (c->op_type == "GreaterOrEqual") col_at = 1;
    if (col_at < 0) {
      *why = "no Greater, Less or their negation";
      return false;
    }
    if (true_means_masked != neg_when_true) {
      *why = "the NEG branch is on the allowed side";
      return false;
    }
    auto col = position_vector(c->input(static_cast<size_t>(col_at)), T, true, si);
    auto row = position_vector(c->input(static_cast<size_t>(1 - col_at)), S, false, si);
    if (!col || col->constant_value() != 0) {
      *why = "the key positions are not Range(0, T, 1) along the last axis";
      return false;
    }
    if (!row || *row != P) {
      *why = "the query positions are not Range(0, S, 1) + the cache's length along the query axis";
      return false;
    }
    return true;
  }

  // A mask folded to a constant (static shapes): [1, .., S, T] with S, T and P known, whose
  // element (i, j) selects NEG exactly where j > i + P.
  static bool constant_triangle(const ir::Tensor& t, bool neg_when_true, const Expr& S, const Expr& T, const Expr& P,
                                std::string* why) {
    auto s = S.constant_value(), n = T.constant_value(), p = P.constant_value();
    const int64_t r = t.rank();
    bool ok = s && n && p && r >= 2 && r <= 4 && t.dims()[static_cast<size_t>(r - 2)] == *s &&
              t.dims()[static_cast<size_t>(r - 1)] == *n && t.numel() == *s * *n && t.bytes();
    for (int64_t i = 0; ok && i < *s; ++i)
      for (int64_t j = 0; ok && j < *n; ++j)
        ok = (ops::element_as_double(t, i * *n + j) != 0) == (neg_when_true == (j > i + *p));
    if (!ok)
      *why = "the constant mask is not [1, .., S, T] selecting NEG exactly where key > query + the cache's length";
    return ok;
  }

  // v through Nots and Casts to bool (numbers: true where not 0), counting the Nots.
  static const ir::Value* through_not_cast(const ir::Value* v, bool& negated) {
    for (;;) {
      const ir::Node* p = v ? v->producer() : nullptr;
      if (is_op(p, "Not") && p->input(0)) {
        negated = !negated;
      } else if (!(is_op(p, "Cast") && p->input(0) &&
                   p->attr_int("to", 0) == static_cast<int64_t>(ir::DataType::kBool))) {
        return v;
      }
      v = p->input(0);
    }
  }

  // torch's tril/triu of ones (masked_fill(~tril(ones(S, S)), NEG) in GPT-2-like exports):
  // v, whose last two axes are the queries i and keys j (the caller checked [.., S, T]), is
  // Trilu(ones, k) through Nots, Casts to bool and Unsqueezes in front. Trilu keeps j <= i + k
  // (upper 0) or j >= i + k (upper 1): allowed exactly where j <= i + P when upper 0 has k = P,
  // masked exactly there when upper 1 has k = P + 1; each Not swaps the two.
  static bool triangle(const ir::Value* v, bool neg_when_true, const Expr& S, const Expr& T, const Expr& P,
                       const ShapeInference& si, std::string* why) {
    bool negated = false;
    for (;;) {
      v = through_not_cast(v, negated);
      const ir::Node* p = v ? v->producer() : nullptr;
      if (!is_op(p, "Unsqueeze") || !p->input(0)) break;
      const SymShape* in = shape_of(si, p->input(0));
      if (!in || in->size() < 2 || (*in)[in->size() - 2] != S || (*in)[in->size() - 1] != T) break;
      v = p->input(0);
    }
    const ir::Node* tri = v ? v->producer() : nullptr;
    const SymShape* ts = shape_of(si, v);
    if (!is_op(tri, "Trilu") || !ts || ts->size() < 2 || (*ts)[ts->size() - 2] != S || (*ts)[ts->size() - 1] != T) {
      *why = "no comparison of key and query positions, nor a Trilu of ones";
      return false;
    }
    auto ones = splat_of(tri->input(0));
    if (!ones || ops::element_as_double(ones->value, 0) == 0) {
      *why = "the Trilu's input is not all true";
      return false;
    }
    Expr k = Expr::constant(0);
    if (tri->num_inputs() > 1 && tri->input(1)) {
      auto ke = scalar_expr(si, tri->input(1));
      if (!ke) {
        *why = "the Trilu's diagonal is not known";
        return false;
      }
      k = *ke;
    }
    const bool upper = tri->attr_int("upper", 1) != 0;
    bool true_means_masked = upper != negated;
    if (true_means_masked != neg_when_true) {
      *why = "the NEG branch is on the allowed side";
      return false;
    }
    if ((upper ? k - 1 : k) != P) {
      *why = "the Trilu's diagonal is not the cache's length";
      return false;
    }
    return true;
  }

  // HF GPT-2's registered buffer: cond = bias[:, :, T - S : T, :T] (Slices of a constant
  // [1, .., M, M] whose element (r, c) is true where c <= r), through Nots and Casts to bool.
  // Row i of the slice is the buffer's row P + i when its rows start at P = T - S and T <= M:
  // true where j <= i + P, the causal mask with the cache's offset, of shape [1, .., S, T].
  // When T > M the slice has M < T columns and the original's Where fails to broadcast (M >= 2),
  // so the fused op is exact wherever the original runs. Empty when cond is not a Slice.
  static std::optional<bool> sliced_triangle(const ir::Value* cond, bool neg_when_true, const Expr& S, const Expr& T,
                                             const Expr& P, const ShapeInference& si, std::string* why) {
    bool negated = false;
    const ir::Value* v = through_not_cast(cond, negated);
    if (!is_op(v->producer(), "Slice")) return std::nullopt;
    std::map<int64_t, std::pair<Expr, Expr>> bounds;  // axis -> [start, end)
    while (is_op(v->producer(), "Slice")) {
      const ir::Node* sl = v->producer();
      const ir::Tensor* base = nullptr;
      const ir::Value* src = sl->input(0);
      while (src && is_op(src->producer(), "Slice")) src = src->producer()->input(0);
      base = src ? ops::FoldContext::constant(src) : nullptr;
      if (!base) break;
      const int64_t r = base->rank();
      const ops::TypeInfo* fs = sl->num_inputs() > 1 ? si.facts(sl->input(1)) : nullptr;
      const ops::TypeInfo* fe = sl->num_inputs() > 2 ? si.facts(sl->input(2)) : nullptr;
      if (!fs || !fe || !fs->values || !fe->values || fs->values->size() != fe->values->size()) break;
      std::vector<int64_t> axes;
      if (sl->num_inputs() > 3 && sl->input(3)) {
        const ir::Tensor* a = ops::FoldContext::constant(sl->input(3));
        if (!a) break;
        axes = ops::to_int64_vector(*a);
      } else {
        for (int64_t i = 0; i < static_cast<int64_t>(fs->values->size()); ++i) axes.push_back(i);
      }
      if (sl->num_inputs() > 4 && sl->input(4)) {
        const ir::Tensor* st = ops::FoldContext::constant(sl->input(4));
        if (!st) break;
        bool ones = true;
        for (int64_t x : ops::to_int64_vector(*st)) ones = ones && x == 1;
        if (!ones) break;
      }
      if (axes.size() != fs->values->size()) break;
      bool twice = false;
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
        twice =
            twice || a < 0 || a >= r || !bounds.emplace(a, std::make_pair((*fs->values)[i], (*fe->values)[i])).second;
      }
      if (twice) break;
      v = sl->input(0);
    }
    const ir::Tensor* buf = is_op(v->producer(), "Slice") ? nullptr : ops::FoldContext::constant(v);
    const int64_t r = buf ? buf->rank() : 0;
    if (!buf || r < 2 || r > 4 || buf->dims()[static_cast<size_t>(r - 1)] != buf->dims()[static_cast<size_t>(r - 2)] ||
        buf->dims()[static_cast<size_t>(r - 1)] < 2) {
      *why = "the sliced mask is not Slices (step 1, known bounds) of a constant [.., M, M] with M >= 2";
      return false;
    }
    const int64_t M = buf->dims()[static_cast<size_t>(r - 1)];
    for (int64_t a = 0; a + 2 < r; ++a) {
      auto it = bounds.find(a);
      if (buf->dims()[static_cast<size_t>(a)] != 1 ||
          (it != bounds.end() &&
           (it->second.first.constant_value() != 0 || !(it->second.second.constant_value() >= 1)))) {
        *why = "the sliced buffer is not [1, .., M, M] kept whole in front";
        return false;
      }
    }
    auto bound = [&](int64_t axis, bool end) {
      auto it = bounds.find(axis);
      if (it == bounds.end()) return end ? Expr::constant(M) : Expr::constant(0);
      return end ? it->second.second : it->second.first;
    };
    if (bound(r - 2, false) != P || bound(r - 2, true) != T || P + S != T ||
        bound(r - 1, false).constant_value() != 0 || bound(r - 1, true) != T) {
      *why = "the buffer's slice is not rows [P, T) and columns [0, T) with T = P + S";
      return false;
    }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < M; ++j)
        if ((ops::element_as_double(*buf, i * M + j) != 0) != (j <= i)) {
          *why = "the sliced buffer is not lower-triangular";
          return false;
        }
    if (negated != neg_when_true) {
      *why = "the NEG branch is on the allowed side";
      return false;
    }
    return true;
  }

  // A vector of n consecutive positions start, start + 1, ... laid along the last axis (last) or
  // the one before (with a 1 after it), through Unsqueezes: Range(start, .., 1) or Range(a, ..,
  // 1) + b. Returns start.
  static std::optional<Expr> position_vector(const ir::Value* v, const Expr& n, bool last, const ShapeInference& si) {
    const SymShape* s = shape_of(si, v);
    if (!s || s->empty()) return std::nullopt;
    size_t r = s->size();
    if (last) {
      if ((*s)[r - 1] != n) return std::nullopt;
      for (size_t i = 0; i + 1 < r; ++i)
        if (!is_one((*s)[i])) return std::nullopt;
    } else {
      if (r < 2 || (*s)[r - 2] != n || !is_one((*s)[r - 1])) return std::nullopt;
      for (size_t i = 0; i + 2 < r; ++i)
        if (!is_one((*s)[i])) return std::nullopt;
    }
    while (is_op(v->producer(), "Unsqueeze") && v->producer()->input(0)) v = v->producer()->input(0);
    const SymShape* vs = shape_of(si, v);
    if (!vs || vs->size() != 1 || (*vs)[0] != n) return std::nullopt;
    return range_start(v, si, 1);
  }

  // start when v = Range(start, .., 1) or Range(a, .., 1) + b (start = a + b); depth bounds the
  // Adds.
  static std::optional<Expr> range_start(const ir::Value* v, const ShapeInference& si, int depth) {
    const ir::Node* p = v->producer();
    if (is_op(p, "Range") && p->num_inputs() == 3) {
      auto delta = scalar_expr(si, p->input(2));
      if (!delta || delta->constant_value() != 1) return std::nullopt;
      return scalar_expr(si, p->input(0));
    }
    if (is_op(p, "Add") && depth > 0)
      for (int i = 0; i < 2; ++i) {
        const SymShape* bs = shape_of(si, p->input(static_cast<size_t>(1 - i)));
        if (!bs || bs->size() > 1 || (bs->size() == 1 && !is_one((*bs)[0]))) continue;
        auto a = range_start(p->input(static_cast<size_t>(i)), si, depth - 1);
        auto b = scalar_expr(si, p->input(static_cast<size_t>(1 - i)));
        if (a && b) return *a + *b;
      }
    return std::nullopt;
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseAttention, "fuse_attention",
                       "Softmax(scale * Q Kᵀ [+ causal mask]) V in BNSH becomes Attention (opset >= 23), taking GQA's "
                       "repeat_kv and a KV cache's Concats into the op; refuses masks that could mask a whole row");

}  // namespace onnxtrim::passes
