// Concat(s1, x, s2; axis) -> Pad(x, pads = k1 before and k2 after along axis, value = c)
// where s1 and s2 repeat one value c (stored, or made by ConstantOfShape, or by Expand or Tile
// of a constant) and have known sizes k1, k2 along the axis (either side may be absent): the
// splats' elements are exactly the constant Pad's. One node, and no splat tensor in the file.
// Refuses: more than one input that is not a splat; splats of different values or types; a
// splat whose size along the axis is not known or whose rank differs from x's; element types
// Pad does not take at the model's opset (before opset 11 only float types, whose value is a
// float attribute; before opset 2 never).
#include <cstring>

#include "ops/kernel_util.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"

namespace onnxtrim::passes {
namespace {

bool pad_takes(ir::DataType t, int64_t opset) {
  using DT = ir::DataType;
  switch (t) {
    case DT::kFloat16: case DT::kFloat: case DT::kDouble: return opset >= 2;
    case DT::kInt8: case DT::kInt16: case DT::kInt32: case DT::kInt64:
    case DT::kUint8: case DT::kUint16: case DT::kUint32: case DT::kUint64: return opset >= 11;
    case DT::kBool: case DT::kBFloat16: return opset >= 13;
    default: return false;
  }
}

struct Match {
  ir::Value* x = nullptr;
  size_t at = 0;  // x's position among the Concat inputs
  ir::Tensor value;
};

class FuseConcatSplat final : public Pass {
 public:
  // Each Concat is matched against the graph as it is when its turn comes: a match made before
  // an earlier rewrite could name a value that rewrite erased (a Concat of splats reading
  // another one, rewritten first), and the Pad would read a freed value.
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    const int64_t opset = ctx.model.opset("");
    std::shared_ptr<const ShapeInference> si;
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead()) continue;
      auto m = matches(*n, opset);
      if (!m) continue;
      if (!si && !(si = current_facts(ctx))) return;
      apply(*n, *m, *si, g, rw, opset);
    }
  }

 private:
  // Cheap checks: one input that is not a splat, every other one a splat of the same value.
  static std::optional<Match> matches(const ir::Node& n, int64_t opset) {
    if (n.op_type != "Concat" || !n.is_default_domain() || n.num_inputs() < 2 || !n.output(0)) return std::nullopt;
    Match m;
    std::optional<ir::Tensor> value;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      ir::Value* in = n.input(i);
      if (!in) return std::nullopt;
      auto s = splat_of(in);
      if (!s) {
        if (m.x) return std::nullopt;
        m.x = in;
        m.at = i;
        continue;
      }
      if (!value) {
        value = s->value;
      } else if (value->dtype() != s->value.dtype() ||
                 std::memcmp(value->bytes(), s->value.bytes(), value->byte_size()) != 0) {
        return std::nullopt;
      }
    }
    if (!m.x || !value || !pad_takes(value->dtype(), opset)) return std::nullopt;
    if (opset < 11 && value->dtype() != ir::DataType::kFloat) return std::nullopt;  // value attribute is a float
    m.value = std::move(*value);
    return m;
  }

  static void apply(ir::Node& n, const Match& m, const ShapeInference& si, ir::Graph& g, ir::Rewriter& rw,
                    int64_t opset) {
    // Every splat's rank and size along the axis.
    int64_t rank = -1;
    const ops::TypeInfo* fx = si.facts(m.x);
    if (fx && fx->shape) rank = fx->rank();
    std::vector<int64_t> sizes(n.num_inputs(), 0);
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      if (i == m.at) continue;
      const ops::TypeInfo* f = si.facts(n.input(i));
      if (!f || !f->shape || (rank >= 0 && f->rank() != rank)) return;
      rank = f->rank();
    }
    if (rank < 1) return;
    int64_t axis = n.attr_int("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      if (i == m.at) continue;
      auto k = (*si.facts(n.input(i))->shape)[static_cast<size_t>(axis)].constant_value();
      if (!k || *k < 0) return;
      sizes[i] = *k;
    }
    std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
    for (size_t i = 0; i < n.num_inputs(); ++i)
      pads[static_cast<size_t>(i < m.at ? axis : rank + axis)] += sizes[i];
    std::vector<ir::Value*> inputs{m.x};
    if (opset >= 11) {
      inputs.push_back(rw.add_initializer(g, ops::make_tensor<int64_t>({2 * rank}, pads), n.output(0)->name() + "_pads"));
      inputs.push_back(rw.add_initializer(g, m.value, n.output(0)->name() + "_pad_value"));
    }
    ir::Node* pad = rw.insert_node(g, &n, "Pad", inputs, 1, n.output(0)->name() + "_pad");
    if (opset < 11) {
      rw.set_attribute(pad, ir::Attribute::make_ints("pads", pads));
      float v;
      std::memcpy(&v, m.value.bytes(), sizeof v);
      rw.set_attribute(pad, ir::Attribute::make_float("value", v));
    }
    rw.set_type(pad->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), pad->output(0))) {
      rw.erase_node(&n);
    } else {
      rw.erase_node(pad);
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(FuseConcatSplat, "fuse_concat_splat", 525,
                       "Concat of a value with splats (constant, ConstantOfShape, Expand/Tile of a constant) along one axis "
                       "becomes one constant Pad; refuses several non-splat inputs, unequal splat values, unknown sizes");

}  // namespace onnxtrim::passes
