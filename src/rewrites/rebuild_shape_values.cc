// v = f(...) with known elements [e0, e1, ...]  ->  u            (an earlier value with the same elements)
//                                              ->  Concat(u1, c, u2, ...)  (pieces: earlier values, constants)
//
// A small integer vector whose elements value propagation knows (as symbolic dims: torch's
// `Where(Equal(Concat(B, -1, -1), -1), 1, ...)` is known to be [B, 1, 1]) is rebuilt from
// values that hold the same elements and are computed before it, and from constants: no node
// at all when one earlier value already holds all of them, else one Concat. The computation
// behind v goes when nothing else reads it (eliminate_dead_nodes), so the rewrite fires only
// when it removes more nodes than it adds.
// Refuses: vectors longer than 8 or of rank other than 1; elements that are neither constant
// nor held by an earlier 1-element vector of the same type; a graph output; a rewrite that
// would not shrink the graph.
#include <map>
#include <set>
#include <unordered_map>

#include "ops/kernel_util.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

using symbolic::Expr;

constexpr size_t kMaxLength = 8;

bool tracked(ir::DataType t) { return t == ir::DataType::kInt64 || t == ir::DataType::kInt32; }

// The known elements of a rank-1 value, or nullptr.
const std::vector<Expr>* elements(const ShapeInference& si, const ir::Value* v) {
  const ops::TypeInfo* f = si.facts(v);
  if (!f || !f->is_tensor() || !tracked(f->elem) || !f->values || !f->shape || f->shape->size() != 1) return nullptr;
  return &*f->values;
}

std::string key_of(const std::vector<Expr>& es) {
  std::string k;
  for (const Expr& e : es) k += e.str() + ";";
  return k;
}

class RebuildShapeValues final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    std::vector<ir::Node*> nodes = g.node_list();
    bool any = false;
    for (ir::Node* n : nodes) any |= n->num_outputs() == 1 && n->op_type != "Constant";
    if (!any) return;
    auto facts = current_facts(ctx);
    if (!facts) return;
    const ShapeInference& si = *facts;
    // Earlier values by their elements (whole vectors, and single symbolic elements).
    std::unordered_map<std::string, ir::Value*> whole;
    std::unordered_map<std::string, ir::Value*> single;
    auto remember = [&](ir::Value* v, ir::DataType t) {
      const std::vector<Expr>* es = elements(si, v);
      if (!es || es->empty() || es->size() > kMaxLength) return;
      bool symbolic = false;
      for (const Expr& e : *es) symbolic |= !e.is_constant();
      if (!symbolic) return;
      std::string k = std::to_string(static_cast<int>(t)) + ":" + key_of(*es);
      whole.emplace(k, v);
      if (es->size() == 1) single.emplace(k, v);
    };
    for (ir::Value* v : g.inputs())
      if (v->type.kind == ir::Type::Kind::kTensor) remember(v, v->type.elem);
    for (ir::Node* n : nodes) {
      if (n->is_dead()) continue;
      if (n->num_outputs() == 1 && n->output(0) && n->is_default_domain()) try_rebuild(*n, si, whole, single, g, rw);
      if (n->is_dead()) continue;
      for (ir::Value* o : n->outputs())
        if (o) {
          const ops::TypeInfo* f = si.facts(o);
          if (f) remember(o, f->elem);
        }
    }
  }

 private:
  static void try_rebuild(ir::Node& n, const ShapeInference& si,
                          const std::unordered_map<std::string, ir::Value*>& whole,
                          const std::unordered_map<std::string, ir::Value*>& single, ir::Graph& g, ir::Rewriter& rw) {
    ir::Value* v = n.output(0);
    if (n.op_type == "Constant" || v->is_graph_output()) return;
    const ops::TypeInfo* f = si.facts(v);
    const std::vector<Expr>* es = elements(si, v);
    if (!es || es->empty() || es->size() > kMaxLength) return;
    bool symbolic = false;
    for (const Expr& e : *es) symbolic |= !e.is_constant();
    if (!symbolic) return;  // a constant: fold_constants' work
    std::string prefix = std::to_string(static_cast<int>(f->elem)) + ":";
    // Nodes that go with n: n and the producers only it (transitively) reads.
    int freed = dying_nodes(n);
    if (auto it = whole.find(prefix + key_of(*es)); it != whole.end()) {
      if (rw.replace_all_uses_with(v, it->second))
        rw.erase_node(&n);  // its producers: eliminate_dead_nodes (the maps hold their values)
      return;
    }
    if (n.op_type == "Concat" || freed < 2) return;  // one Concat would not make it smaller
    // Pieces: runs of constants, and earlier 1-element values for symbolic elements.
    std::vector<ir::Value*> pieces;
    std::vector<int64_t> run;
    auto flush = [&]() {
      if (run.empty()) return;
      ir::Tensor t(f->elem, {static_cast<int64_t>(run.size())});
      ops::dispatch(f->elem, ops::kSigned, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = t.mutable_data<T>();
        for (size_t i = 0; i < run.size(); ++i) p[i] = static_cast<T>(run[i]);
      });
      pieces.push_back(rw.add_initializer(g, std::move(t), v->name() + "_part"));
      run.clear();
    };
    std::vector<ir::Value*> found;
    for (const Expr& e : *es) {
      if (e.is_constant()) continue;
      auto it = single.find(prefix + key_of({e}));
      if (it == single.end()) return;
      found.push_back(it->second);
    }
    size_t k = 0;
    for (const Expr& e : *es) {
      if (auto c = e.constant_value()) {
        if (f->elem == ir::DataType::kInt32 && (*c < INT32_MIN || *c > INT32_MAX)) return;
        run.push_back(*c);
      } else {
        flush();
        pieces.push_back(found[k++]);
      }
    }
    flush();
    ir::Node* cat = rw.insert_node(g, &n, "Concat", pieces, 1, v->name() + "_rebuilt");
    rw.set_attribute(cat, ir::Attribute::make_int("axis", 0));
    rw.set_type(cat->output(0), v->type);
    if (rw.replace_all_uses_with(v, cat->output(0)))
      rw.erase_node(&n);  // its producers: eliminate_dead_nodes (the maps hold their values)
    else rw.erase_node(cat);
  }

  // How many nodes disappear with n: n, and producers whose outputs only dying nodes read.
  static int dying_nodes(ir::Node& n) {
    std::set<const ir::Node*> dead{&n};
    std::vector<const ir::Node*> todo{&n};
    while (!todo.empty()) {
      const ir::Node* m = todo.back();
      todo.pop_back();
      for (const ir::Value* in : m->inputs()) {
        const ir::Node* p = in ? in->producer() : nullptr;
        if (!p || dead.count(p) || !p->subgraphs().empty()) continue;
        bool only = true;
        for (const ir::Value* o : p->outputs()) {
          if (!o) continue;
          if (o->is_graph_output()) only = false;
          for (const ir::Use& u : o->uses()) only &= dead.count(u.node) > 0;
        }
        if (only) {
          dead.insert(p);
          todo.push_back(p);
        }
      }
    }
    return static_cast<int>(dead.size());
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(
    RebuildShapeValues, "rebuild_shape_values",
    "a small integer vector whose elements are known (symbolic dims and constants) becomes an earlier "
    "value holding them, or one Concat of such values and constants, when that removes nodes");

}  // namespace onnxtrim::passes
