// Concat(RotaryEmbedding(x[.., :R], cos, sin, pos), x[.., R:], axis -1)
//   -> RotaryEmbedding(x, cos, sin, pos; rotary_embedding_dim = R)
// The partial rotary of GPT-NeoX, Phi and their kin (HF's rotary_ndims / partial_rotary_factor):
// the first R features of each head are rotated (fuse_rotary_embedding has made that part one
// RotaryEmbedding, whose caches are [max_pos, R / 2]) and the rest pass through, which is what
// rotary_embedding_dim R does. Same values: the fused op copies the last D - R features as they
// are and rotates the first R with the same caches. An interleaved RotaryEmbedding (GPT-J and
// CodeGen's partial rotate_every_two) keeps interleaved 1: its pairs (2i, 2i + 1) lie within the
// first R features as well (R even).
// Refuses: a RotaryEmbedding that is not 4D-BNSH (num_heads set) or already partial; Slices
// that are not exactly [0, R) and [R, D) of the last axis of the same x, or that are read
// elsewhere; R odd or not less than D; a Concat on another axis or of other inputs.
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/slice_spec.h"

namespace onnxtrim::passes {
namespace {

struct Partial {
  ir::Node* rope = nullptr;
  ir::Value* x = nullptr;
  int64_t r = 0;
};

class FusePartialRotaryEmbedding final : public Rule<Partial> {
 public:
  std::vector<std::string> roots() const override { return {"Concat"}; }

 protected:
  Match<Partial> match(const ir::Node& n, RuleContext& ctx) override {
    if (ctx.opset() < 23) return refuse("opset " + std::to_string(ctx.opset()) + " < 23 has no RotaryEmbedding");
    if (n.num_inputs() != 2 || !n.output(0)) return refuse("not a Concat of two");
    const int64_t axis = n.attr_int("axis", 0);
    if (axis != -1 && axis != 3) return refuse("the Concat is not on the last axis of a 4D value");
    ir::Node* rope = const_cast<ir::Node*>(private_producer(n.input(0), "RotaryEmbedding", &n));
    if (!rope) return refuse("the first input is not a RotaryEmbedding read only by the Concat");
    if (rope->attr_int("rotary_embedding_dim", 0) != 0 || rope->attr_int("num_heads", 0) != 0)
      return refuse("the RotaryEmbedding is partial already, or 3D");
    const ir::Node* lo = private_producer(rope->input(0), "Slice", rope);
    const ir::Node* hi = private_producer(n.input(1), "Slice", &n);
    if (!lo || !hi || lo->input(0) != hi->input(0))
      return refuse("the inputs are not two Slices of one x, each read once");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    const ops::TypeInfo* fx = si->facts(lo->input(0));
    if (!fx || fx->rank() != 4) return refuse("x is not of rank 4");
    auto d = (*fx->shape)[3].constant_value();
    if (!d) return refuse("x's head size is not a constant");
    auto a = last_axis_window(*lo, ctx.opset(), 4, *d), b = last_axis_window(*hi, ctx.opset(), 4, *d);
    if (!a || !b || a->first != 0 || b->first != a->second || b->second != *d)
      return refuse("the Slices are not x[.., :R] and x[.., R:] of the last axis");
    const int64_t r = a->second;
    if (r <= 0 || r >= *d || r % 2 != 0) return refuse("R is odd, zero or the whole head");
    return Partial{rope, lo->input(0), r};
  }

  void apply(ir::Node& n, Partial& m, RuleContext& ctx, ir::Rewriter& rw) override {
    std::vector<ir::Value*> inputs{m.x};
    for (size_t i = 1; i < m.rope->num_inputs(); ++i) inputs.push_back(m.rope->input(i));
    ir::Node* whole = rw.insert_node(ctx.graph(), &n, "RotaryEmbedding", inputs, 1, n.output(0)->name() + "_rotary");
    rw.set_attribute(whole, ir::Attribute::make_int("rotary_embedding_dim", m.r));
    if (m.rope->attr_int("interleaved", 0) != 0) rw.set_attribute(whole, ir::Attribute::make_int("interleaved", 1));
    rw.set_type(whole->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), whole->output(0))) rw.erase_node_and_dead_producers(&n);
    else rw.erase_node(whole);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FusePartialRotaryEmbedding, "fuse_partial_rotary_embedding",
                       "Concat(RotaryEmbedding(x[.., :R]), x[.., R:]) (GPT-NeoX/Phi's partial rotary) becomes one "
                       "RotaryEmbedding with rotary_embedding_dim R (opset >= 23; off for --target wasm)");

}  // namespace onnxtrim::passes
