// Attention(Transpose(Reshape(q3, [B, S, Hq, D]), [0, 2, 1, 3]), .. k, .. v, rest) -> Y4
// Reshape(Transpose(Y4, [0, 2, 1, 3]), [B, S, Hq * Dv])
//     -> Attention(q3, k3, v3, rest; q_num_heads Hq, kv_num_heads Hkv) -> Y3
// The heads' split and merge around a 4D Attention (what fuse_attention makes from an export's
// view/transpose) become Attention-23's 3D layout, which splits Q [B, S, Hq * D], K and V
// [B, T, Hkv * D] into heads and merges Y [B, S, Hq * Dv] itself. A Reshape of [B, S, H * D]
// to [B, S, H, D] splits the last axis row-major, and Transpose [0, 2, 1, 3] makes BNSH: that is
// how the op reads a 3D input, so the rewrite moves no element and is exact. past/present stay
// 4D (the op's cache is 4D in both layouts); a mask is read as it was.
// Refuses: opset < 23; an Attention with 3D inputs already or qk_matmul_output read; any of Q,
// K, V not such a Transpose of a Reshape, each read only by the next; shapes whose facts do not
// show the split ([B, S, H * D] -> [B, S, H, D] with H and D constants, B and S the same for
// Q and Y, K and V of one length); Y not read only by the Transpose and that only by a Reshape
// to [B, S, Hq * Dv]; a graph output among the intermediates.
#include <algorithm>

#include "ops/fold.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

struct Attention3d {
  ir::Value* q = nullptr;  // the 3D inputs
  ir::Value* k = nullptr;
  ir::Value* v = nullptr;
  ir::Node* merge = nullptr;  // the Reshape whose output Y3 replaces
  int64_t hq = 0, hkv = 0;
};

const ops::SymShape* attention3d_shape(const ShapeInference& si, const ir::Value* v) {
  const ops::TypeInfo* f = v ? si.facts(v) : nullptr;
  return f && f->shape ? &*f->shape : nullptr;
}

class FuseAttention3d final : public Rule<Attention3d> {
 public:
  std::vector<std::string> roots() const override { return {"Attention"}; }

 protected:
  Match<Attention3d> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 23) return refuse("opset " + std::to_string(ctx.opset()) + " < 23 has no Attention");
    if (n.num_inputs() < 3 || !n.input(0) || !n.input(1) || !n.input(2)) return refuse("Q, K or V missing");
    if (n.num_outputs() > 3 && n.output(3) && (n.output(3)->has_uses() || n.output(3)->is_graph_output()))
      return refuse("qk_matmul_output is read");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    Attention3d m;
    std::vector<symbolic::Expr> qsplit, ksplit, vsplit;  // [B, S, H, D] of each
    if (!split_heads(n.input(0), n, *si, m.q, qsplit) || !split_heads(n.input(1), n, *si, m.k, ksplit) ||
        !split_heads(n.input(2), n, *si, m.v, vsplit))
      return refuse("Q, K or V is not Transpose [0, 2, 1, 3] of a Reshape splitting [B, S, H * D] into heads");
    auto hq = qsplit[2].constant_value(), hkv = ksplit[2].constant_value();
    if (!hq || !hkv || vsplit[2] != ksplit[2] || ksplit[0] != qsplit[0] || vsplit[0] != qsplit[0] ||
        vsplit[1] != ksplit[1])
      return refuse("Q, K and V do not agree on batch, KV heads or length");
    // Y: read only by Transpose [0, 2, 1, 3], read only by a Reshape to [B, S, Hq * Dv].
    const ir::Value* y = n.output(0);
    if (y->is_graph_output() || y->uses().size() != 1) return refuse("Y is not read by one Transpose alone");
    const ir::Node* t = y->uses()[0].node;
    if (!is_op(t, "Transpose") || t->attr_ints("perm") != std::vector<int64_t>{0, 2, 1, 3})
      return refuse("Y is not read by Transpose [0, 2, 1, 3]");
    const ir::Value* ty = t->output(0);
    if (ty->is_graph_output() || ty->uses().size() != 1 || !is_op(ty->uses()[0].node, "Reshape") ||
        ty->uses()[0].index != 0)
      return refuse("the heads' Transpose is not read by one Reshape alone");
    m.merge = ty->uses()[0].node;
    const ops::SymShape* ys = attention3d_shape(*si, y);
    const ops::SymShape* ms = attention3d_shape(*si, m.merge->output(0));
    if (!ys || !ms || ys->size() != 4 || ms->size() != 3 || (*ys)[0] != qsplit[0] || (*ys)[1] != qsplit[2] ||
        (*ys)[2] != qsplit[1] || !(*ys)[3].constant_value() || (*ms)[0] != qsplit[0] || (*ms)[1] != qsplit[1] ||
        (*ms)[2] != (*ys)[1] * (*ys)[3])
      return refuse("the merge is not a Reshape of [B, S, Hq, Dv] to [B, S, Hq * Dv]");
    m.hq = *hq;
    m.hkv = *hkv;
    return m;
  }

  void apply(ir::Node& n, Attention3d& m, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    std::vector<ir::Value*> inputs{m.q, m.k, m.v};
    for (size_t i = 3; i < n.num_inputs(); ++i) inputs.push_back(n.input(i));
    // Y and the present outputs (ONNX Runtime refuses past without present); qk_matmul_output is
    // not read (match).
    const size_t outs = std::min<size_t>(n.num_outputs(), 3);
    ir::Node* att = rw.insert_node(g, &n, "Attention", inputs, outs, m.merge->output(0)->name() + "_attention");
    for (const ir::Attribute& a : n.attributes)
      if (a.name != "q_num_heads" && a.name != "kv_num_heads") rw.set_attribute(att, a);
    rw.set_attribute(att, ir::Attribute::make_int("q_num_heads", m.hq));
    rw.set_attribute(att, ir::Attribute::make_int("kv_num_heads", m.hkv));
    rw.set_type(att->output(0), m.merge->output(0)->type);
    rw.replace_all_uses_with(m.merge->output(0), att->output(0));
    for (size_t i = 1; i < outs; ++i) {
      if (!n.output(i)) continue;
      rw.set_type(att->output(i), n.output(i)->type);
      rw.replace_all_uses_with(n.output(i), att->output(i));
    }
    rw.erase_node_and_dead_producers(m.merge);
  }

 private:
  // v = Transpose(Reshape(x, ..), [0, 2, 1, 3]), each read only by the next, the Reshape taking
  // x [B, S, H * D] to [B, S, H, D] (H and D constants); sets x and the split [B, S, H, D].
  static bool split_heads(const ir::Value* v, const ir::Node& by, const ShapeInference& si, ir::Value*& x,
                          std::vector<symbolic::Expr>& split) {
    const ir::Node* t = private_producer(v, "Transpose", &by);
    if (!t || t->attr_ints("perm") != std::vector<int64_t>{0, 2, 1, 3}) return false;
    const ir::Node* r = private_producer(t->input(0), "Reshape", t);
    if (!r || !r->input(0)) return false;
    const ops::SymShape* in = attention3d_shape(si, r->input(0));
    const ops::SymShape* out = attention3d_shape(si, r->output(0));
    if (!in || !out || in->size() != 3 || out->size() != 4 || (*out)[0] != (*in)[0] || (*out)[1] != (*in)[1] ||
        !(*out)[2].constant_value() || !(*out)[3].constant_value() || (*out)[2] * (*out)[3] != (*in)[2])
      return false;
    x = r->input(0);
    split = *out;
    return true;
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseAttention3d, "fuse_attention_3d",
                       "an Attention between its heads' split (Reshape, Transpose [0, 2, 1, 3]) and merge takes Q, K "
                       "and V in the 3D layout with q_num_heads/kv_num_heads (opset >= 23): no element moves");

}  // namespace onnxtrim::passes
