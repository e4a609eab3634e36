// op(s1, ..., sk) -> ConstantOfShape(shape(y), value = op(c1, ..., ck))
// for an elementwise op whose every input si repeats one value ci (a ConstantOfShape, an Expand
// or Tile of a constant, or a stored splat) and at least one of them is made by such a
// generator node. Every element of y is op applied to the same values, so y repeats op(c1..ck);
// the value is computed by the evaluator's own kernel for the node (same attributes, same
// rounding), on one-element inputs. fold_constants cannot do it when y is large: it evaluates
// nothing past its cone cap, so x + (w + w + w) over a 500 MB splat w stayed three Adds over a
// ConstantOfShape; now each Add becomes a generator and eliminate_splat_broadcast then makes
// the last operand a scalar.
// Refuses: an input that is not a splat; inputs that are all stored constants (folding's
// business, which then writes them within its budget); a shape of y not known statically; an
// element type ConstantOfShape cannot produce at the model's opset; ops with a random, a
// positional or an old-broadcast (axis/broadcast attribute) meaning.
#include <cstring>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/folding_policy.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"
#include "rewrites/splat.h"

namespace onnxtrim::passes {
namespace {

// Elementwise ops whose value at each element depends only on the inputs' elements there.
const std::vector<std::string>& splat_elementwise_ops() {
  static const std::vector<std::string> kOps = {"Add",         "Sub",
                                                "Mul",         "Div",
                                                "Pow",         "Max",
                                                "Min",         "Sum",
                                                "Mean",        "Mod",
                                                "Where",       "Equal",
                                                "Less",        "Greater",
                                                "LessOrEqual", "GreaterOrEqual",
                                                "And",         "Or",
                                                "Xor",         "Not",
                                                "BitShift",    "BitwiseAnd",
                                                "BitwiseOr",   "BitwiseXor",
                                                "BitwiseNot",  "Relu",
                                                "LeakyRelu",   "Elu",
                                                "Selu",        "Celu",
                                                "Sigmoid",     "HardSigmoid",
                                                "HardSwish",   "Tanh",
                                                "Erf",         "Neg",
                                                "Abs",         "Exp",
                                                "Log",         "Sqrt",
                                                "Reciprocal",  "Floor",
                                                "Ceil",        "Round",
                                                "Sign",        "Cast",
                                                "CastLike",    "Clip",
                                                "Softplus",    "Softsign",
                                                "Sin",         "Cos",
                                                "Tan",         "Asin",
                                                "Acos",        "Atan",
                                                "Sinh",        "Cosh",
                                                "Asinh",       "Acosh",
                                                "Atanh",       "IsNaN",
                                                "IsInf",       "Mish",
                                                "Gelu",        "ThresholdedRelu",
                                                "Shrink"};
  return kOps;
}

struct SplatResult {
  ir::Tensor value;            // one element, y's element type
  std::vector<int64_t> shape;  // y's static shape
};

class FoldSplatElementwise final : public Rule<SplatResult> {
 public:
  std::vector<std::string> roots() const override { return splat_elementwise_ops(); }

 protected:
  Match<SplatResult> match(const ir::Node& n, RuleContext& ctx) override {
    if (n.num_outputs() != 1 || !n.subgraphs().empty() || n.has_attr("axis") || n.has_attr("broadcast"))
      return refuse("old broadcasting (axis/broadcast attributes) or not one output");
    if (!n.output(0)) return refuse("no output");
    std::vector<ir::Tensor> values;
    bool generated = false;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const ir::Value* in = n.input(i);
      if (!in) {
        values.emplace_back();
        continue;
      }
      auto s = splat_of(in);
      if (!s) return refuse("input " + std::to_string(i) + " does not repeat one value");
      generated = generated || s->generator;
      values.push_back(std::move(s->value));
    }
    if (!generated) return refuse("every input is a stored constant (fold_constants' business)");
    // y's shape, static.
    std::vector<int64_t> shape;
    const ir::Type& t = n.output(0)->type;
    const ShapeInference* si = ctx.facts();
    const ops::TypeInfo* f = si ? si->facts(n.output(0)) : nullptr;
    if (f && f->shape) {
      for (const symbolic::Expr& d : *f->shape) {
        auto c = d.constant_value();
        if (!c || *c < 0) return refuse("the output's shape is not static");
        shape.push_back(*c);
      }
    } else if (t.is_tensor() && t.is_static()) {
      shape = *t.static_dims();
    } else {
      return refuse("the output's shape is not known");
    }
    // op on the one-element inputs, by the node's own kernel.
    eval::Interpreter interp(ctx.model());
    std::vector<ir::RuntimeValue> held;
    held.reserve(values.size());
    std::vector<const ir::RuntimeValue*> inputs(values.size(), nullptr);
    for (size_t i = 0; i < values.size(); ++i) {
      if (!n.input(i)) continue;
      held.push_back(ir::RuntimeValue::of(values[i]));
      inputs[i] = &held.back();
    }
    auto r = interp.run_node(n, inputs, nullptr);
    if (!r || r.value().size() != 1 || !r.value()[0].is_tensor())
      return refuse("the evaluator cannot compute it on one-element inputs");
    ir::Tensor y = std::move(r.value()[0].tensor);
    if (y.numel() != 1) return refuse("one-element inputs did not give one element");
    if (!generator_type(y.dtype(), ctx.opset()))
      return refuse("ConstantOfShape cannot produce " + std::string(ir::dtype_name(y.dtype())) + " at opset " +
                    std::to_string(ctx.opset()));
    if (t.is_tensor() && t.elem != ir::DataType::kUndefined && t.elem != y.dtype())
      return refuse("the output's declared type differs");
    return SplatResult{std::move(y), std::move(shape)};
  }

  // The node becomes the ConstantOfShape in place: y keeps its name, graph output or not.
  void apply(ir::Node& n, SplatResult& fit, RuleContext& ctx, ir::Rewriter& rw) override {
    const int64_t rank = static_cast<int64_t>(fit.shape.size());
    ir::Value* s =
        rw.add_initializer(ctx.graph(), ops::make_tensor<int64_t>({rank}, fit.shape), n.output(0)->name() + "_shape");
    std::vector<std::string> names;
    for (const ir::Attribute& a : n.attributes) names.push_back(a.name);
    for (const std::string& a : names) rw.remove_attribute(&n, a);
    rw.set_input(&n, 0, s);
    rw.remove_trailing_inputs(&n, 1);
    rw.set_op_type(&n, "ConstantOfShape");
    ir::Tensor one(fit.value.dtype(), {1});
    std::memcpy(one.mutable_bytes(), fit.value.bytes(), static_cast<size_t>(ir::dtype_bits(one.dtype()) / 8));
    ir::Attribute a;
    a.name = "value";
    a.type = ir::AttrType::kTensor;
    a.t = std::make_shared<ir::Tensor>(std::move(one));
    rw.set_attribute(&n, std::move(a));
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FoldSplatElementwise, "fold_splat_elementwise",
                       "an elementwise op whose inputs all repeat one value, one of them made by a generator "
                       "(ConstantOfShape, Expand/Tile of a constant), becomes a ConstantOfShape of the op's value, "
                       "computed by its kernel; needs the output's static shape");

}  // namespace onnxtrim::passes
