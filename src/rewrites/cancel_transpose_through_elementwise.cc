// Transpose(E(a1, ..., ak), q) -> E'(a1', ..., ak')
// An elementwise op commutes with a permutation of the axes applied to every input of the
// output's rank: Transpose(E(a, b), q) = E(Transpose(a, q), Transpose(b, q)). The rule pulls the
// Transpose q up through a region of elementwise ops (each input taken recursively through
// the elementwise op making it) to where it meets, at each input a of the region:
//   a = Transpose(x, p) with p then q the identity: a' = x (the inverse Transpose; it goes
//       when nothing else reads it);
//   a = Transpose(x, p) otherwise: a' = Transpose(x, p then q) (the pair merged);
//   a constant: a' is the constant with leading 1s up to the rank, transposed by q;
//   a value of one element (every dim 1, any rank up to the output's): a' = a;
//   any other value of the output's rank: a' = Transpose(a, q), a new Transpose.
// A value of the region read outside it (or a graph output) keeps its layout for those
// readers through a new Transpose back (the inverse of q). The Transposes removed (q and the
// inverse Transposes nothing else reads) must outnumber the Transposes added, or the rule does
// not fire: the number of Transposes only falls. The region is every elementwise producer
// whose pulling costs less than a Transpose of its output would. This is ONNX Runtime's
// transpose optimizer's push through elementwise ops and cancellation of the pair, goal-
// directed: on torchvision's convnext the Transposes back to NCHW of a stage's blocks go
// through the layer-scale Mul and the residual Add and cancel the next stage's Transpose to
// NHWC. Pure data movement and the same elementwise arithmetic on the same elements: exact.
// Refuses: a region input of unknown rank, or of lower rank that is not constant and not one
// element; a perm that is not a permutation; ops of opset < 7 (Add-6 and older broadcast
// along an `axis`); nodes of another graph than the Transpose's (their values are read, never
// rebuilt); a region of more than 256 nodes; a change that would not lower the count.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_set>

#include "ops/fold.h"
#include "passes/rule.h"

namespace onnxtrim::passes::transpose_pull {
namespace {

constexpr size_t kMaxRegion = 256;
constexpr size_t kMaxConstantBytes = size_t{16} << 20;

bool elementwise(const ir::Node* n) {
  static const std::unordered_set<std::string> kOps = {
      "Add",      "Sub",         "Mul",   "Div",   "Pow",   "Max",       "Min",         "Sum",
      "Mean",     "Mod",         "Where", "Equal", "Less",  "Greater",   "LessOrEqual", "GreaterOrEqual",
      "And",      "Or",          "Xor",   "Not",   "Relu",  "LeakyRelu", "Elu",         "Selu",
      "Sigmoid",  "HardSigmoid", "Tanh",  "Erf",   "Neg",   "Abs",       "Exp",         "Log",
      "Sqrt",     "Reciprocal",  "Floor", "Ceil",  "Round", "Sign",      "Cast",        "Clip",
      "Softplus", "Sin",         "Cos",   "IsNaN", "IsInf", "HardSwish", "Mish",        "Gelu"};
  if (!n || !n->is_default_domain() || !kOps.count(n->op_type) || n->num_outputs() != 1) return false;
  // Old broadcasting (opset < 7) names its axes.
  return !n->has_attr("axis") && !n->has_attr("broadcast") && n->subgraphs().empty();
}

// The perm of a Transpose of rank r (absent: the axes reversed); empty when not a permutation.
std::vector<int64_t> perm_of(const ir::Node& t, int64_t r) {
  std::vector<int64_t> p = t.attr_ints("perm");
  if (p.empty() && t.has_attr("perm")) return {};
  if (!t.has_attr("perm"))
    for (int64_t i = r - 1; i >= 0; --i) p.push_back(i);
  if (static_cast<int64_t>(p.size()) != r) return {};
  std::vector<bool> seen(p.size(), false);
  for (int64_t a : p) {
    if (a < 0 || a >= r || seen[static_cast<size_t>(a)]) return {};
    seen[static_cast<size_t>(a)] = true;
  }
  return p;
}

bool identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

enum class Kind { kRefuse, kAbsent, kKeep, kConst, kThrough, kWrap };

struct Input {
  Kind kind = Kind::kRefuse;
  std::vector<int64_t> perm;            // kThrough: the merged perm on x (identity: x itself)
  const ir::Node* transpose = nullptr;  // kThrough: the Transpose read through
  std::string why;
};

// How input a of a region node of rank r is taken through q (the region aside).
Input classify(const ir::Value* a, int64_t r, const std::vector<int64_t>& q) {
  Input in;
  if (!a) {
    in.kind = Kind::kAbsent;
    return in;
  }
  if (const ir::Tensor* c = ops::FoldContext::constant(a)) {
    const int bits = ir::dtype_bits(c->dtype());
    if (c->rank() > r) {
      in.why = "'" + a->name() + "' has a higher rank than the Transpose";
    } else if (c->numel() == 1) {
      in.kind = Kind::kKeep;
    } else if (bits > 0 && bits % 8 == 0 && c->byte_size() <= kMaxConstantBytes) {
      in.kind = Kind::kConst;
    } else {
      in.why = "the constant '" + a->name() + "' is too large or of packed or string elements";
    }
    return in;
  }
  if (!a->type.is_tensor() || !a->type.has_shape) {
    in.why = "'" + a->name() + "' has no known rank";
    return in;
  }
  const int64_t ra = a->type.rank();
  if (ra > r) {
    in.why = "'" + a->name() + "' has a higher rank than the Transpose";
    return in;
  }
  if (std::all_of(a->type.dims.begin(), a->type.dims.end(), [](const ir::Dim& d) { return d.value == 1; })) {
    in.kind = Kind::kKeep;
    return in;
  }
  if (ra < r) {
    in.why = "'" + a->name() + "' has a lower rank and is neither constant nor of one element";
    return in;
  }
  const ir::Node* t = a->producer();
  if (t && t->op_type == "Transpose" && t->is_default_domain() && t->input(0)) {
    std::vector<int64_t> p = perm_of(*t, r);
    if (!p.empty()) {
      in.kind = Kind::kThrough;
      in.transpose = t;
      in.perm.resize(q.size());
      for (size_t i = 0; i < q.size(); ++i) in.perm[i] = p[static_cast<size_t>(q[i])];
      return in;
    }
  }
  in.kind = Kind::kWrap;
  return in;
}

// The pulled Transpose, the region of elementwise nodes it goes through (inputs before
// readers; the node making the Transpose's input last).
struct Pull {
  std::vector<int64_t> perm;
  std::vector<ir::Node*> region;
};

class CancelTransposeThroughElementwise final : public Rule<Pull> {
 public:
  std::vector<std::string> roots() const override { return {"Transpose"}; }

 protected:
  Match<Pull> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 7) return refuse("opset " + std::to_string(ctx.opset()) + " < 7");
    const ir::Value* z = n.input(0);
    if (!z || !z->type.is_tensor() || !z->type.has_shape) return refuse("the Transpose's input has no known rank");
    const int64_t r = z->type.rank();
    std::vector<int64_t> q = perm_of(n, r);
    if (q.empty()) return refuse("the perm is not a permutation of the input's axes");
    if (identity(q)) return refuse("the perm is the identity");
    ir::Node* e = z->producer();
    if (!elementwise(e)) return refuse("its input is not made by an elementwise op");
    if (e->graph() != n.graph()) return refuse("its input is made in an enclosing graph");
    Search s{q, r, &ctx.graph(), {}, {}, {}, ""};
    if (!s.visit(e)) return refuse(s.why);
    // Exact count of the change.
    std::set<const ir::Node*> in_region(s.region.begin(), s.region.end());
    int64_t removed = 1, added = 0;
    std::set<const ir::Value*> wrapped;
    std::set<const ir::Node*> dropped;
    for (const ir::Node* m : s.region) {
      const ir::Value* v = m->output(0);
      bool outside = v->is_graph_output();
      for (const ir::Use& u : v->uses()) outside |= u.node != &n && !in_region.count(u.node);
      added += outside;
      for (const ir::Value* a : m->inputs()) {
        if (!a || (a->producer() && in_region.count(a->producer()))) continue;
        Input in = classify(a, r, q);
        if (in.kind == Kind::kWrap || (in.kind == Kind::kThrough && !identity(in.perm))) {
          if (wrapped.insert(in.kind == Kind::kWrap ? a : in.transpose->input(0)).second) ++added;
        }
        if (in.kind == Kind::kThrough && !a->is_graph_output() && !dropped.count(in.transpose) &&
            std::all_of(a->uses().begin(), a->uses().end(),
                        [&](const ir::Use& u) { return in_region.count(u.node) > 0; })) {
          dropped.insert(in.transpose);
          ++removed;
        }
      }
    }
    if (removed <= added)
      return refuse("pulling it through " + std::to_string(s.region.size()) + " elementwise nodes removes " +
                    std::to_string(removed) + " Transposes and adds " + std::to_string(added));
    return Pull{q, std::move(s.region)};
  }

  void apply(ir::Node& n, Pull& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    const std::vector<int64_t>& q = m.perm;
    const int64_t r = static_cast<int64_t>(q.size());
    std::vector<int64_t> inv(q.size());
    for (size_t i = 0; i < q.size(); ++i) inv[static_cast<size_t>(q[i])] = static_cast<int64_t>(i);
    std::set<const ir::Node*> in_region(m.region.begin(), m.region.end());
    // In graph order: a value read by several region nodes gets its image before the first.
    std::map<const ir::Node*, size_t> position;
    g.for_each_node([&](const ir::Node* x) {
      if (in_region.count(x)) position.emplace(x, position.size());
    });
    std::stable_sort(m.region.begin(), m.region.end(),
                     [&](const ir::Node* a, const ir::Node* b) { return position[a] < position[b]; });
    std::map<const ir::Value*, ir::Value*> image;  // old value -> the same under q
    auto permuted = [&](const ir::Type& t, const std::vector<int64_t>& p) {
      if (!t.has_shape || static_cast<int64_t>(t.dims.size()) != r) return ir::Type::tensor_unranked(t.elem);
      std::vector<ir::Dim> d;
      for (int64_t a : p) d.push_back(t.dims[static_cast<size_t>(a)]);
      return ir::Type::tensor(t.elem, std::move(d));
    };
    auto transpose_node = [&](ir::Node* pos, ir::Value* x, const std::vector<int64_t>& p, std::string_view hint) {
      ir::Node* t = rw.insert_node(g, pos, "Transpose", {x}, 1, hint);
      rw.set_attribute(t, ir::Attribute::make_ints("perm", p));
      rw.set_type(t->output(0), permuted(x->type, p));
      return t->output(0);
    };
    for (ir::Node* old : m.region) {
      std::vector<ir::Value*> inputs;
      for (ir::Value* a : old->inputs()) {
        if (!a) {
          inputs.push_back(nullptr);
        } else if (a->producer() && in_region.count(a->producer())) {
          inputs.push_back(image.at(a));
        } else if (auto it = image.find(a); it != image.end()) {
          inputs.push_back(it->second);
        } else {
          Input in = classify(a, r, q);
          ir::Value* v = a;
          if (in.kind == Kind::kConst) {
            v = rw.add_initializer(g, transposed(*ops::FoldContext::constant(a), q), a->name() + "_transposed");
          } else if (in.kind == Kind::kThrough) {
            ir::Value* x = in.transpose->input(0);
            v = identity(in.perm) ? x : transpose_node(old, x, in.perm, a->name() + "_transposed");
          } else if (in.kind == Kind::kWrap) {
            v = transpose_node(old, a, q, a->name() + "_transposed");
          }
          image[a] = v;
          inputs.push_back(v);
        }
      }
      ir::Node* e =
          rw.insert_node(g, old, old->op_type, inputs, 1, old->output(0)->name() + "_transposed", old->domain);
      for (const ir::Attribute& at : old->attributes) rw.set_attribute(e, at);
      rw.set_type(e->output(0), permuted(old->output(0)->type, q));
      image[old->output(0)] = e->output(0);
    }
    // Readers outside the region keep the old layout through a Transpose back.
    for (ir::Node* old : m.region) {
      ir::Value* v = old->output(0);
      bool outside = v->is_graph_output();
      for (const ir::Use& u : v->uses()) outside |= u.node != &n && !in_region.count(u.node);
      if (!outside) continue;
      ir::Value* back = transpose_node(old, image.at(v), inv, v->name() + "_back");
      rw.replace_all_uses_with(v, back);
    }
    ir::Value* z = m.region.back()->output(0);
    ir::Value* z_image = image.at(z);
    if (n.output(0)->type.has_shape) rw.set_type(z_image, n.output(0)->type);
    // Never refused (z_image is a new node output of the graph); were it, the old region
    // would stay alive and the graph correct.
    if (rw.replace_all_uses_with(n.output(0), z_image)) rw.erase_node_and_dead_producers(&n);
    for (auto it = m.region.rbegin(); it != m.region.rend(); ++it) {
      ir::Node* old = *it;
      if (old->is_dead()) continue;
      ir::Value* v = old->output(0);
      if (!v->has_uses() && !v->is_graph_output()) rw.erase_node_and_dead_producers(old);
    }
  }

 private:
  // c with leading 1s up to rank(q), then transposed by q.
  static ir::Tensor transposed(const ir::Tensor& c, const std::vector<int64_t>& q) {
    const size_t r = q.size();
    std::vector<int64_t> dims(r - static_cast<size_t>(c.rank()), 1);
    dims.insert(dims.end(), c.dims().begin(), c.dims().end());
    std::vector<int64_t> out(r), in_strides(r, 1);
    for (size_t i = r; i-- > 1;) in_strides[i - 1] = in_strides[i] * dims[i];
    for (size_t i = 0; i < r; ++i) out[i] = dims[static_cast<size_t>(q[i])];
    ir::Tensor y(c.dtype(), out);
    const size_t es = static_cast<size_t>(ir::dtype_bits(c.dtype()) / 8);
    const uint8_t* src = c.bytes();
    uint8_t* dst = y.mutable_bytes();
    std::vector<int64_t> idx(r, 0);
    for (int64_t k = 0; k < y.numel(); ++k) {
      int64_t off = 0;
      for (size_t i = 0; i < r; ++i) off += idx[i] * in_strides[static_cast<size_t>(q[i])];
      std::memcpy(dst + static_cast<size_t>(k) * es, src + static_cast<size_t>(off) * es, es);
      for (size_t i = r; i-- > 0;) {
        if (++idx[i] < out[i]) break;
        idx[i] = 0;
      }
    }
    return y;
  }

  // The region search: from the node making the Transpose's input up through elementwise
  // producers whose pulling costs less than a Transpose of their output.
  struct Search {
    const std::vector<int64_t>& q;
    int64_t r;
    const ir::Graph* g;
    std::vector<ir::Node*> region;
    std::set<const ir::Node*> in_region, rejected;
    std::string why;

    bool ok_node(const ir::Node* e) const {
      return elementwise(e) && e->graph() == g && e->output(0)->type.is_tensor() && e->output(0)->type.rank() == r;
    }

    // Adds e and the producers worth it; false (with why) when an input refuses.
    bool visit(ir::Node* e) {
      if (!ok_node(e)) {
        why = "'" + e->output(0)->name() + "' is not of the Transpose's rank";
        return false;
      }
      int64_t unused = 0;
      return visit(e, unused);
    }

    bool visit(ir::Node* e, int64_t& cost) {
      if (region.size() >= kMaxRegion) {
        why = "the region has more than " + std::to_string(kMaxRegion) + " nodes";
        return false;
      }
      for (ir::Value* a : e->inputs()) {
        if (a && a->producer() && in_region.count(a->producer())) continue;
        Input in = classify(a, r, q);
        if (in.kind == Kind::kRefuse) {
          why = in.why;
          return false;
        }
        if (in.kind == Kind::kThrough) {
          cost += (identity(in.perm) ? 0 : 1) - (read_only_by(a, e) ? 1 : 0);
          continue;
        }
        if (in.kind != Kind::kWrap) continue;
        ir::Node* p = a->producer();
        if (p && !rejected.count(p) && ok_node(p)) {
          const size_t mark = region.size();
          const std::string why_before = why;
          int64_t sub = (a->is_graph_output() || a->uses().size() > 1) ? 1 : 0;
          if (visit(p, sub) && sub < 1) {
            cost += sub;
            continue;
          }
          for (size_t k = mark; k < region.size(); ++k) in_region.erase(region[k]);
          region.resize(mark);
          rejected.insert(p);
          why = why_before;
        }
        cost += 1;
      }
      region.push_back(e);
      in_region.insert(e);
      return true;
    }
  };
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    CancelTransposeThroughElementwise, "cancel_transpose_through_elementwise",
    "a Transpose is pulled up through elementwise ops (constants transposed, one-element inputs kept) "
    "to cancel inverse Transposes; fires only when it removes more Transposes than it adds");

}  // namespace onnxtrim::passes::transpose_pull
