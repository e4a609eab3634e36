// GPT-J's rotary, applied in the [B, S, H, D] layout before the heads' Transpose:
//   Transpose(Concat(x[.., :R] * cos + rotate_every_two(x[.., :R]) * sin, x[.., R:], axis -1), [0, 2, 1, 3])
//   cos = Concat(c_0, .., c_{n-1}, axis 3), n = R / 2,
//   c_k = Reshape(Expand(Unsqueeze(Split(Unsqueeze(C, 2), n ones, axis 3)[k], 4), ..), ..)   [B, S, 1, 2]
//   C = Split(Gather(T, position_ids, axis 0), axis -1)[i]                                      [B, S, n]
//   -> RotaryEmbedding(Transpose(x, [0, 2, 1, 3]), T[:, o : o + n] (o: C's columns), the same of
//      sin's table, position_ids; interleaved 1, rotary_embedding_dim R (when R < D))
// torch writes GPT-J's repeat_interleave(sin[:, :, None, :], 2, 3) after the table lookup as that
// cone: C[.., k] is unsqueezed to [B, S, 1, 1, 1], expanded to [B, S, 1, 1, 2] (its two elements
// copies of it) and reshaped to [B, S, 1, 2] (row-major, the leading dims kept: element t stays
// t), and the n pieces concatenated on the last axis put copies of C[.., k] at 2k and 2k + 1:
// cos[b, s, 0, j] = T[position_ids[b, s], o + j / 2], the cache of an interleaved
// RotaryEmbedding, whose pair i is (2i, 2i + 1) with angle index i. The products and the sum are
// the decomposition's, as in the BNSH form above; cos broadcasts over the heads (its axis 2 is 1)
// and the rotation is per position and head dim, so it is the same before or after the Transpose,
// which moves into the fused op's input. The pass-through x[.., R:] is what rotary_embedding_dim
// R < D leaves alone. Shapes are the proved facts: the Expand's output is [B, S, 1, 1, 2] and the
// Reshape's [B, S, 1, 2] of the same B and S, which are x's, as are the position ids'.
// Refuses: a Transpose other than [0, 2, 1, 3]; x not rank 4 with constant dims R (even) and D;
// Slices that are not [0, R) and [R, D) of x's last axis; tables that are not that cone over one
// Split of a Gather of a constant [max_pos, W] by int64 [B, S] position ids; an intermediate of
// the rotary read elsewhere or a graph output (the tables' cone may be shared: it is left to
// eliminate_dead_nodes). Not matched: rotate_half (GPT-NeoX) in this layout, tables already
// repeated before the lookup in this layout.
#include <cstring>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/rotary.h"
#include "rewrites/slice_spec.h"

namespace onnxtrim::passes {
namespace {

using ops::SymShape;

struct GptjRotary {
  ir::Value* x = nullptr;  // [B, S, H, D], before the Transpose
  ir::Value* positions = nullptr;
  ir::Value* cos_table = nullptr;
  ir::Value* sin_table = nullptr;
  int64_t cos_offset = 0, sin_offset = 0;  // the first column of each cache in its table
  int64_t rotary_dim = 0, head_dim = 0;
};

class FuseRotaryEmbeddingBshd final : public Rule<GptjRotary> {
 public:
  std::vector<std::string> roots() const override { return {"Transpose"}; }

 protected:
  Match<GptjRotary> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 23) return refuse("opset " + std::to_string(ctx.opset()) + " < 23 has no RotaryEmbedding");
    if (n.attr_ints("perm") != std::vector<int64_t>{0, 2, 1, 3} || !n.output(0))
      return refuse("not the heads' Transpose [0, 2, 1, 3]");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    const int64_t opset = ctx.opset();
    GptjRotary m;
    const ir::Node* add = private_producer(n.input(0), "Add", &n);  // the whole head rotated (R = D)
    const bool whole = add != nullptr;
    ir::Value* x_rot = nullptr;  // x[.., :R], or x when R = D
    if (!whole) {
      const ir::Node* cat = private_producer(n.input(0), "Concat", &n);
      if (!cat || cat->num_inputs() != 2 || (cat->attr_int("axis", 0) != -1 && cat->attr_int("axis", 0) != 3))
        return refuse("the Transpose does not read the rotary or Concat(rotary, pass-through, axis -1)");
      add = private_producer(cat->input(0), "Add", cat);
      const ir::Node* pass = private_producer(cat->input(1), "Slice", cat);
      if (!add || !pass) return refuse("the Concat is not of x[.., :R] rotated and x[.., R:]");
      m.x = pass->input(0);
      const ops::TypeInfo* fx = si->facts(m.x);
      auto d = fx && fx->rank() == 4 ? (*fx->shape)[3].constant_value() : std::nullopt;
      if (!d) return refuse("x is not rank 4 with a constant head size");
      m.head_dim = *d;
      const auto w = last_axis_window(*pass, opset, 4, *d);
      if (!w || w->second != *d || w->first <= 0) return refuse("the pass-through is not x[.., R:]");
      m.rotary_dim = w->first;
    }
    std::string why = "the rotary is not x * cos + rotate_every_two(x) * sin";
    for (int i = 0; i < 2; ++i) {
      const ir::Node* plain = private_producer(add->input(static_cast<size_t>(i)), "Mul", add);
      const ir::Node* rotated = private_producer(add->input(static_cast<size_t>(1 - i)), "Mul", add);
      if (!plain || !rotated) continue;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          m.positions = nullptr;  // what an earlier candidate set
          if (whole) m.rotary_dim = 0;
          x_rot = plain->input(static_cast<size_t>(a));
          if (!whole) {  // x[.., :R], a Slice of x read by the products
            const ir::Node* s = x_rot ? x_rot->producer() : nullptr;
            if (!is_op(s, "Slice") || s->input(0) != m.x ||
                last_axis_window(*s, opset, 4, m.head_dim) != std::make_pair(int64_t{0}, m.rotary_dim))
              continue;
          } else {
            m.x = x_rot;
          }
          const ir::Value* rot = rotated->input(static_cast<size_t>(b));
          if (!rotary::rotate_every_two_of(rot, rotated, x_rot, *si, opset)) continue;
          const ops::TypeInfo* fx = si->facts(m.x);
          if (!fx || fx->rank() != 4 || !(*fx->shape)[3].constant_value()) return refuse("x's head size is not known");
          m.head_dim = *(*fx->shape)[3].constant_value();
          if (!m.rotary_dim) m.rotary_dim = m.head_dim;
          if (!repeated_lookup(plain->input(static_cast<size_t>(1 - a)), m, *si, m.cos_table, m.cos_offset) ||
              !repeated_lookup(rotated->input(static_cast<size_t>(1 - b)), m, *si, m.sin_table, m.sin_offset)) {
            why = "cos and sin are not GPT-J's repeat_interleave of columns of one table gathered by position ids";
            continue;
          }
          if (!fits(m, *si, &why)) return refuse(why);
          return m;
        }
    }
    return refuse(why);
  }

  void apply(ir::Node& n, GptjRotary& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    const int64_t half = m.rotary_dim / 2;
    ir::Value* cos = columns(m.cos_table, m.cos_offset, half, g, rw);
    ir::Value* sin = columns(m.sin_table, m.sin_offset, half, g, rw);
    const std::string base = n.output(0)->name();
    ir::Node* t = rw.insert_node(g, &n, "Transpose", {m.x}, 1, base + "_bnsh");
    rw.set_attribute(t, ir::Attribute::make_ints("perm", {0, 2, 1, 3}));
    ir::Node* rope =
        rw.insert_node(g, &n, "RotaryEmbedding", {t->output(0), cos, sin, m.positions}, 1, base + "_rotary");
    rw.set_attribute(rope, ir::Attribute::make_int("interleaved", 1));
    if (m.rotary_dim < m.head_dim)
      rw.set_attribute(rope, ir::Attribute::make_int("rotary_embedding_dim", m.rotary_dim));
    rw.set_type(rope->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), rope->output(0))) {
      rw.erase_node_and_dead_producers(&n);
    } else {
      rw.erase_node(rope);
      rw.erase_node(t);
    }
  }

 private:
  // v = GPT-J's repeat of columns [o, o + R/2) of `table` gathered by the position ids, as the
  // header says; sets table and o, and m.positions (or checks it).
  static bool repeated_lookup(const ir::Value* v, GptjRotary& m, const ShapeInference& si, ir::Value*& table,
                              int64_t& offset) {
    const int64_t n = m.rotary_dim / 2;
    const ops::TypeInfo* fx = si.facts(m.x);
    const ops::TypeInfo* fv = si.facts(v);
    const ir::Node* cat = v ? v->producer() : nullptr;
    if (!is_op(cat, "Concat") || static_cast<int64_t>(cat->num_inputs()) != n || !fv || fv->rank() != 4) return false;
    const SymShape& vs = *fv->shape;
    if (vs[0] != (*fx->shape)[0] || vs[1] != (*fx->shape)[1] || vs[2].constant_value() != 1 ||
        vs[3].constant_value() != m.rotary_dim)
      return false;
    const ir::Node* split = nullptr;
    for (int64_t k = 0; k < n; ++k) {
      const ir::Value* c = cat->input(static_cast<size_t>(k));
      const ir::Node* r = c ? c->producer() : nullptr;
      const ir::Node* e = is_op(r, "Reshape") && r->input(0) ? r->input(0)->producer() : nullptr;
      const ir::Node* u = is_op(e, "Expand") && e->input(0) ? e->input(0)->producer() : nullptr;
      if (!is_op(u, "Unsqueeze")) return false;
      const std::vector<int64_t> axes = rotary::unsqueeze_axes(*u);
      if (axes != std::vector<int64_t>{4} && axes != std::vector<int64_t>{-1}) return false;
      const ir::Value* piece = u->input(0);
      const ir::Node* sp = piece ? piece->producer() : nullptr;
      if (!is_op(sp, "Split") || (split && sp != split) || sp->num_outputs() != static_cast<size_t>(n) ||
          sp->output(static_cast<size_t>(k)) != piece)
        return false;
      split = sp;
      // [B, S, 1, 1] -> [B, S, 1, 1, 1] -> [B, S, 1, 1, 2] -> [B, S, 1, 2], B and S x's.
      const ops::TypeInfo* fp = si.facts(piece);
      const ops::TypeInfo* fe = si.facts(e->output(0));
      const ops::TypeInfo* fr = si.facts(c);
      if (!fp || !fe || !fr || fp->rank() != 4 || fe->rank() != 5 || fr->rank() != 4) return false;
      const SymShape &ps = *fp->shape, &es = *fe->shape, &rs = *fr->shape;
      for (const SymShape* s : {&ps, &es, &rs})
        if ((*s)[0] != vs[0] || (*s)[1] != vs[1]) return false;
      if (ps[2].constant_value() != 1 || ps[3].constant_value() != 1) return false;
      if (es[2].constant_value() != 1 || es[3].constant_value() != 1 || es[4].constant_value() != 2) return false;
      if (rs[2].constant_value() != 1 || rs[3].constant_value() != 2) return false;
    }
    if (cat->attr_int("axis", 0) != 3 && cat->attr_int("axis", 0) != -1) return false;
    if (split->attr_int("axis", 0) != 3 && split->attr_int("axis", 0) != -1) return false;
    // The split reads Unsqueeze(C, 2): [B, S, 1, n] from C [B, S, n].
    const ir::Node* u2 = split->input(0) ? split->input(0)->producer() : nullptr;
    if (!is_op(u2, "Unsqueeze") || rotary::unsqueeze_axes(*u2) != std::vector<int64_t>{2}) return false;
    const ir::Value* c = u2->input(0);
    const ops::TypeInfo* fc = si.facts(c);
    if (!fc || fc->rank() != 3 || (*fc->shape)[0] != vs[0] || (*fc->shape)[1] != vs[1] ||
        (*fc->shape)[2].constant_value() != n)
      return false;
    // C is one output of a Split of the gathered rows on their last axis: its columns start
    // after the outputs before it.
    const ir::Node* halves = c->producer();
    if (!is_op(halves, "Split") || (halves->attr_int("axis", 0) != -1 && halves->attr_int("axis", 0) != 2))
      return false;
    int64_t o = 0;
    size_t index = 0;
    for (; index < halves->num_outputs() && halves->output(index) != c; ++index) {
      const ops::TypeInfo* fo = si.facts(halves->output(index));
      auto w = fo && fo->rank() == 3 ? (*fo->shape)[2].constant_value() : std::nullopt;
      if (!w) return false;
      o += *w;
    }
    if (index == halves->num_outputs()) return false;
    const ir::Node* gather = halves->input(0) ? halves->input(0)->producer() : nullptr;
    if (!is_op(gather, "Gather") || gather->attr_int("axis", 0) != 0) return false;
    const ir::Tensor* t = ops::FoldContext::constant(gather->input(0));
    const ops::TypeInfo* fg = si.facts(halves->input(0));
    if (!t || t->rank() != 2 || !t->bytes() || !fg || fg->rank() != 3 ||
        (*fg->shape)[2].constant_value() != t->dims()[1] || o + n > t->dims()[1])
      return false;
    if (m.positions && m.positions != gather->input(1)) return false;
    m.positions = gather->input(1);
    table = gather->input(0);
    offset = o;
    return true;
  }

  static bool fits(const GptjRotary& m, const ShapeInference& si, std::string* why) {
    const ops::TypeInfo* fx = si.facts(m.x);
    const ops::TypeInfo* fp = si.facts(m.positions);
    const SymShape& xs = *fx->shape;
    if (m.rotary_dim % 2 != 0 || m.rotary_dim <= 0 || m.rotary_dim > m.head_dim) {
      *why = "the rotary dim is not even and at most the head size";
      return false;
    }
    if (!fp || fp->elem != ir::DataType::kInt64 || fp->rank() != 2 || (*fp->shape)[0] != xs[0] ||
        (*fp->shape)[1] != xs[1]) {
      *why = "the position ids are not int64 [B, S] of x's batch and length";
      return false;
    }
    if (fx->elem != ir::DataType::kFloat && fx->elem != ir::DataType::kFloat16 && fx->elem != ir::DataType::kBFloat16) {
      *why = "x is not float, float16 or bfloat16";
      return false;
    }
    for (const ir::Value* tv : {m.cos_table, m.sin_table})
      if (ops::FoldContext::constant(tv)->dtype() != fx->elem) {
        *why = "a table is not of x's type";
        return false;
      }
    return true;
  }

  // table[:, o : o + n], made once (found again by name).
  static ir::Value* columns(ir::Value* table, int64_t o, int64_t n, ir::Graph& g, ir::Rewriter& rw) {
    const std::string name = table->name() + "_cols" + std::to_string(o) + "_" + std::to_string(o + n);
    if (ir::Value* v = g.lookup(name); v && v->is_initializer()) return v;
    const ir::Tensor& t = *ops::FoldContext::constant(table);
    const int64_t rows = t.dims()[0], w = t.dims()[1];
    ir::Tensor part(t.dtype(), {rows, n});
    const size_t esize = ir::dtype_storage_bytes(t.dtype(), 1);
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(part.mutable_bytes() + static_cast<size_t>(r * n) * esize,
                  t.bytes() + static_cast<size_t>(r * w + o) * esize, static_cast<size_t>(n) * esize);
    return rw.add_initializer(g, std::move(part), name);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseRotaryEmbeddingBshd, "fuse_rotary_embedding_bshd",
                       "GPT-J's rotary before the heads' Transpose, Transpose(Concat(x[.., :R] * cos + "
                       "rotate_every_two(x[.., :R]) * sin, x[.., R:])) with its tables repeat_interleave'd after the "
                       "lookup, becomes RotaryEmbedding of the transposed x (opset >= 23; off for --target wasm); "
                       "refuses other layouts, tables not proved to be that repeat");

}  // namespace onnxtrim::passes
