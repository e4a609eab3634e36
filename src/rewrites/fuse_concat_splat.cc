// Concat(s1, x, s2; axis) -> Pad(x, pads = k1 before and k2 after along axis, value = c)
// where s1 and s2 repeat one value c (stored, or made by ConstantOfShape, or by Expand or Tile
// of a constant) and have known sizes k1, k2 along the axis (either side may be absent): the
// splats' elements are exactly the constant Pad's. One node, and no splat tensor in the file.
// Refuses: more than one input that is not a splat; splats of different values or types; a
// splat whose size along the axis is not known or whose rank differs from x's; element types
// Pad does not take at the model's opset (before opset 11 only float types, whose value is a
// float attribute; before opset 2 never).
#include <cstring>
#include <optional>

#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"

namespace onnxtrim::passes {
namespace {

bool pad_takes(ir::DataType t, int64_t opset) {
  using DT = ir::DataType;
  switch (t) {
    case DT::kFloat16:
    case DT::kFloat:
    case DT::kDouble: return opset >= 2;
    case DT::kInt8:
    case DT::kInt16:
    case DT::kInt32:
    case DT::kInt64:
    case DT::kUint8:
    case DT::kUint16:
    case DT::kUint32:
    case DT::kUint64: return opset >= 11;
    case DT::kBool:
    case DT::kBFloat16: return opset >= 13;
    default: return false;
  }
}

// What apply writes: Pad(x, pads, value).
struct SplatPad {
  ir::Value* x = nullptr;
  std::vector<int64_t> pads;
  ir::Tensor value;
};

class FuseConcatSplat final : public Rule<SplatPad> {
 public:
  std::vector<std::string> roots() const override { return {"Concat"}; }

 protected:
  // One input that is not a splat, every other one a splat of the same value, each of known
  // size along the axis and of x's rank.
  Match<SplatPad> match(const ir::Node& n, RuleContext& ctx) override {
    const int64_t opset = ctx.opset();
    if (n.num_inputs() < 2 || !n.output(0)) return refuse("fewer than two inputs");
    SplatPad m;
    size_t at = 0;  // x's position among the inputs
    std::optional<ir::Tensor> value;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      ir::Value* in = n.input(i);
      if (!in) return refuse("an input is absent");
      auto s = splat_of(in);
      if (!s) {
        if (m.x) return refuse("more than one input is not a splat");
        m.x = in;
        at = i;
        continue;
      }
      if (!value) {
        value = s->value;
      } else if (value->dtype() != s->value.dtype() ||
                 std::memcmp(value->bytes(), s->value.bytes(), value->byte_size()) != 0) {
        return refuse("the splats repeat different values");
      }
    }
    if (!m.x || !value) return refuse(m.x ? "no input is a splat" : "every input is a splat");
    if (!pad_takes(value->dtype(), opset)) return refuse("Pad does not take the element type at this opset");
    if (opset < 11 && value->dtype() != ir::DataType::kFloat) return refuse("before opset 11 Pad's value is a float");
    const ShapeInference* si = ctx.facts();
    if (!si) return refuse("shape inference fails on the model");
    // Every splat's rank and size along the axis.
    int64_t rank = -1;
    const ops::TypeInfo* fx = si->facts(m.x);
    if (fx && fx->shape) rank = fx->rank();
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      if (i == at) continue;
      const ops::TypeInfo* f = si->facts(n.input(i));
      if (!f || !f->shape) return refuse("a splat's shape is not known");
      if (rank >= 0 && f->rank() != rank) return refuse("a splat's rank differs from the other input's");
      rank = f->rank();
    }
    if (rank < 1) return refuse("rank 0");
    int64_t axis = n.attr_int("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return refuse("the axis is out of range");
    m.pads.assign(static_cast<size_t>(2 * rank), 0);
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      if (i == at) continue;
      auto k = (*si->facts(n.input(i))->shape)[static_cast<size_t>(axis)].constant_value();
      if (!k || *k < 0) return refuse("a splat's size along the axis is not known");
      m.pads[static_cast<size_t>(i < at ? axis : rank + axis)] += *k;
    }
    m.value = std::move(*value);
    return m;
  }

  void apply(ir::Node& n, SplatPad& m, RuleContext& ctx, ir::Rewriter& rw) override {
    const int64_t opset = ctx.opset();
    ir::Graph& g = ctx.graph();
    const int64_t two_rank = static_cast<int64_t>(m.pads.size());
    std::vector<ir::Value*> inputs{m.x};
    if (opset >= 11) {
      inputs.push_back(
          rw.add_initializer(g, ops::make_tensor<int64_t>({two_rank}, m.pads), n.output(0)->name() + "_pads"));
      inputs.push_back(rw.add_initializer(g, m.value, n.output(0)->name() + "_pad_value"));
    }
    ir::Node* pad = rw.insert_node(g, &n, "Pad", inputs, 1, n.output(0)->name() + "_pad");
    if (opset < 11) {
      rw.set_attribute(pad, ir::Attribute::make_ints("pads", m.pads));
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

ONNXTRIM_REGISTER_RULE(
    FuseConcatSplat, "fuse_concat_splat",
    "Concat of a value with splats (constant, ConstantOfShape, Expand/Tile of a constant) along one axis "
    "becomes one constant Pad; refuses several non-splat inputs, unequal splat values, unknown sizes");

}  // namespace onnxtrim::passes
