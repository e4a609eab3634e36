// x * cos + rotate_half(x) * sin,  rotate_half(x) = Concat(-x[.., h:], x[.., :h], axis -1),
//   cos = Unsqueeze(Gather(cos_table, position_ids), 1), sin likewise, h = D / 2
//   -> RotaryEmbedding(x, cos_table[:, :h], sin_table[:, :h], position_ids)
// x * cos + rotate_every_two(x) * sin,
//   rotate_every_two(x) = Reshape(Concat(Unsqueeze(-odd(x), -1), Unsqueeze(even(x), -1), axis -1), shape of x),
//   even(x) = x[.., 0::2] and odd(x) = x[.., 1::2], as Slices of step 2 or as Gather(Reshape(x, [.., h, 2]), 0 | 1,
//   axis -1)
//   -> RotaryEmbedding(x, cos_table[:, 0::2], sin_table[:, 0::2], position_ids; interleaved = 1)
// HF's apply_rotary_pos_emb (Llama, Mistral, Qwen, ...) as torch exports it, on q or k in the
// BNSH layout [B, H, S, D] that RotaryEmbedding-23 takes as it is (4D, the whole head rotated).
// HF's tables are cat(freqs, freqs): each row's two halves are equal, so element d and d + h of
// the decomposition use the same angle, which is what RotaryEmbedding computes from its caches of
// [max_pos, D / 2]: the fusion checks the halves are equal, bit for bit, and writes the first
// halves as the caches. Per element the fused op computes x[d] cos - x[d + h] sin and
// x[d + h] cos + x[d] sin: the decomposition's products and sums.
// The interleaved form (GPT-J/CodeGen's rotate_every_two, Cohere's rotate_half: torch's
// stack((-x2, x1), -1).flatten(-2)) pairs element 2i with 2i + 1: rotate_every_two(x)[2i] =
// -x[2i + 1] and [2i + 1] = x[2i], because the Concat of the two [.., h, 1] halves is
// [.., h, 2] with -odd at [.., i, 0] and even at [.., i, 1], and a Reshape to [.., D] with the
// leading dims unchanged puts [.., i, j] at 2i + j (row-major). Its tables are
// repeat_interleave(freqs, 2): each row's elements 2i and 2i + 1 are equal (checked bit for bit)
// and the caches are the even elements; the fused op (interleaved 1) computes x[2i] cos - x[2i + 1]
// sin and x[2i + 1] cos + x[2i] sin.
// Refuses: opset < 23; x not rank 4 with a constant, even head size; position ids that are not
// int64 [B, S] matching x's batch and length; tables that are not constants of [max_pos, D] of x's
// type with equal halves (equal pairs when interleaved); Slices that are not exactly the two
// halves of the last axis (the even and odd elements: start 0 | 1, step 2, to the end); Reshapes
// whose shapes are not proved [B, H, S, h, 2] and x's [B, H, S, D]; the products in another
// arrangement; an intermediate read elsewhere or that is a graph output. GPT-J's rotary (the
// [B, S, H, D] layout, its tables repeat_interleave'd after the Gather) is
// fuse_rotary_embedding_bshd.cc's; not matched: tables sliced by length without position ids.
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

struct Rotary {
  ir::Value* x = nullptr;
  ir::Value* cos_table = nullptr;
  ir::Value* sin_table = nullptr;
  ir::Value* positions = nullptr;
  bool interleaved = false;
};

class FuseRotaryEmbedding final : public Rule<Rotary> {
 public:
  std::vector<std::string> roots() const override { return {"Add"}; }

 protected:
  Match<Rotary> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 23) return refuse("opset " + std::to_string(ctx.opset()) + " < 23 has no RotaryEmbedding");
    if (n.num_inputs() != 2 || !n.output(0)) return refuse("not a binary Add");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    std::string why = "the Add is not x * cos + rotate_half(x) * sin";
    for (int i = 0; i < 2; ++i) {
      const ir::Node* plain = private_producer(n.input(static_cast<size_t>(i)), "Mul", &n);
      const ir::Node* rotated = private_producer(n.input(static_cast<size_t>(1 - i)), "Mul", &n);
      if (!plain || !rotated) continue;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          Rotary m;
          m.x = plain->input(static_cast<size_t>(a));
          const ir::Value* rot = rotated->input(static_cast<size_t>(b));
          if (rotate_half_of(rot, rotated, m.x, *si, ctx.opset())) m.interleaved = false;
          else if (rotary::rotate_every_two_of(rot, rotated, m.x, *si, ctx.opset())) m.interleaved = true;
          else continue;
          if (!table_lookup(plain->input(static_cast<size_t>(1 - a)), m.cos_table, m.positions) ||
              !table_lookup(rotated->input(static_cast<size_t>(1 - b)), m.sin_table, m.positions)) {
            why = "cos and sin are not Unsqueeze(Gather(table, position_ids), 1) of the same position ids";
            continue;
          }
          if (!fits(m, *si, &why)) return refuse(why);
          return m;
        }
    }
    return refuse(why);
  }

  void apply(ir::Node& n, Rotary& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Value* cos_half = half_table(m.cos_table, m.interleaved, ctx.graph(), rw);
    ir::Value* sin_half = half_table(m.sin_table, m.interleaved, ctx.graph(), rw);
    ir::Node* rope = rw.insert_node(ctx.graph(), &n, "RotaryEmbedding", {m.x, cos_half, sin_half, m.positions}, 1,
                                    n.output(0)->name() + "_rotary");
    if (m.interleaved) rw.set_attribute(rope, ir::Attribute::make_int("interleaved", 1));
    rw.set_type(rope->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), rope->output(0))) rw.erase_node_and_dead_producers(&n);
    else rw.erase_node_and_dead_producers(rope);
  }

 private:
  // rot = Concat(Neg(x[.., h:]), x[.., :h], axis -1), each read only by the next.
  static bool rotate_half_of(const ir::Value* rot, const ir::Node* by, const ir::Value* x, const ShapeInference& si,
                             int64_t opset) {
    const ir::Node* cat = private_producer(rot, "Concat", by);
    if (!cat || cat->num_inputs() != 2) return false;
    const ops::TypeInfo* fx = si.facts(x);
    if (!fx || fx->rank() != 4) return false;
    auto d = (*fx->shape)[3].constant_value();
    if (!d || *d % 2 != 0 || *d <= 0) return false;
    int64_t axis = cat->attr_int("axis", 0);
    if (axis != -1 && axis != 3) return false;
    const ir::Node* neg = private_producer(cat->input(0), "Neg", cat);
    if (!neg) return false;
    const ir::Node* hi = private_producer(neg->input(0), "Slice", neg);
    const ir::Node* lo = private_producer(cat->input(1), "Slice", cat);
    const int64_t h = *d / 2;
    auto half = [&](const ir::Node* s, int64_t begin, int64_t end) {
      return s && s->input(0) == x && last_axis_window(*s, opset, 4, *d) == std::make_pair(begin, end);
    };
    return half(hi, h, *d) && half(lo, 0, h);
  }

  // v = Unsqueeze(Gather(table, positions, axis 0), [1]); positions agree with `positions`.
  static bool table_lookup(const ir::Value* v, ir::Value*& table, ir::Value*& positions) {
    const ir::Node* u = v ? v->producer() : nullptr;
    if (!is_op(u, "Unsqueeze") || rotary::unsqueeze_axes(*u) != std::vector<int64_t>{1}) return false;
    const ir::Node* g = u->input(0) ? u->input(0)->producer() : nullptr;
    if (!is_op(g, "Gather") || g->attr_int("axis", 0) != 0 || !ops::FoldContext::constant(g->input(0))) return false;
    if (positions && positions != g->input(1)) return false;
    table = g->input(0);
    positions = g->input(1);
    return true;
  }

  static bool fits(const Rotary& m, const ShapeInference& si, std::string* why) {
    const size_t esize = ir::dtype_storage_bytes(si.facts(m.x)->elem, 1);
    const ops::TypeInfo* fx = si.facts(m.x);
    const ops::TypeInfo* fp = si.facts(m.positions);
    const SymShape& xs = *fx->shape;
    const int64_t d = *xs[3].constant_value();
    if (!fp || fp->elem != ir::DataType::kInt64 || fp->rank() != 2 || (*fp->shape)[0] != xs[0] ||
        (*fp->shape)[1] != xs[2]) {
      *why = "the position ids are not int64 [B, S] of x's batch and length";
      return false;
    }
    if (fx->elem != ir::DataType::kFloat && fx->elem != ir::DataType::kFloat16 && fx->elem != ir::DataType::kBFloat16) {
      *why = "x is not float, float16 or bfloat16";
      return false;
    }
    for (const ir::Value* tv : {m.cos_table, m.sin_table}) {
      const ir::Tensor* t = ops::FoldContext::constant(tv);
      if (t->dtype() != fx->elem || t->rank() != 2 || t->dims()[1] != d || !t->bytes()) {
        *why = "a table is not a constant [max_pos, D] of x's type";
        return false;
      }
      const size_t row = static_cast<size_t>(d) * esize;
      for (int64_t r = 0; r < t->dims()[0]; ++r) {
        const uint8_t* p = t->bytes() + static_cast<size_t>(r) * row;
        if (!m.interleaved && std::memcmp(p, p + row / 2, row / 2) != 0) {
          *why = "a table's rows do not have equal halves";
          return false;
        }
        for (size_t e = 0; m.interleaved && e < row; e += 2 * esize)
          if (std::memcmp(p + e, p + e + esize, esize) != 0) {
            *why = "a table's rows do not have equal pairs (elements 2i and 2i + 1)";
            return false;
          }
      }
    }
    return true;
  }

  // table[:, :D/2] (table[:, 0::2] when interleaved), made once per table (found again by name).
  static ir::Value* half_table(ir::Value* table, bool interleaved, ir::Graph& g, ir::Rewriter& rw) {
    const std::string name = table->name() + (interleaved ? "_even" : "_half");
    if (ir::Value* v = g.lookup(name); v && v->is_initializer()) return v;
    const ir::Tensor& t = *ops::FoldContext::constant(table);
    const int64_t rows = t.dims()[0], d = t.dims()[1];
    ir::Tensor half(t.dtype(), {rows, d / 2});
    const size_t esize = ir::dtype_storage_bytes(t.dtype(), 1);
    const size_t row = static_cast<size_t>(d) * esize;
    for (int64_t r = 0; r < rows; ++r) {
      uint8_t* to = half.mutable_bytes() + static_cast<size_t>(r) * row / 2;
      const uint8_t* from = t.bytes() + static_cast<size_t>(r) * row;
      if (!interleaved) std::memcpy(to, from, row / 2);
      for (int64_t i = 0; interleaved && i < d / 2; ++i)
        std::memcpy(to + static_cast<size_t>(i) * esize, from + static_cast<size_t>(2 * i) * esize, esize);
    }
    ir::Value* v = rw.add_initializer(g, std::move(half), name);
    return v;
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseRotaryEmbedding, "fuse_rotary_embedding",
    "x * cos + rotate_half(x) * sin with HF's cos/sin tables gathered by position ids becomes "
    "RotaryEmbedding (opset >= 23; off for --target wasm), and the interleaved rotate_every_two with "
    "repeat_interleave'd tables (interleaved 1); refuses tables whose halves (pairs) differ");

}  // namespace onnxtrim::passes
