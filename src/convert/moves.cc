// Version steps that move a value between an attribute and an input (and the few other
// rewrites of tensor ops). Upgrades turn the attribute into a constant input; downgrades need
// the input to be a constant (an initializer, a Constant node, or a value shape inference
// proves) and refuse otherwise.
//
//   Squeeze/Unsqueeze-13 axes      ReduceSum-13 / Reduce*-18 axes    Split-13 split
//   Split-18 num_outputs           Pad-11 pads, value                Pad-18 axes, Pad-19 wrap
//   Clip-11 min, max               Slice-10 starts/ends/axes/steps   TopK-10 k
//   Shape-15 start/end             Reshape-14 allowzero              Dropout-12 ratio, training_mode
//   Constant-12 value_*            Gemm-11 optional C                Scatter <-> ScatterElements (11)
//   Max/Min/Sum/Mean-8 broadcasting  DFT-20 axis
//   negative axis/axes (11: down, made non-negative from the rank)   Scan-9 (refused)
#include <cmath>
#include <limits>

#include "convert/opset_context.h"
#include "ir/dtype.h"

namespace onnxtrim::convert {
namespace {

std::string hint(const ir::Node& n, const char* what) { return (n.name.empty() ? n.op_type : n.name) + "_" + what; }

Status not_constant(StepContext& ctx, const ir::Node& n, const char* input, const char* attr) {
  return ctx.refuse(n, std::string("input '") + input + "' is not a constant, so it cannot become the attribute " +
                           attr + " of " + n.op_type + " at opset " + std::to_string(ctx.to()));
}

// Attribute `attr` (ints) -> input `idx`, an int64 1-D constant (absent stays absent).
Status ints_attr_to_input(StepContext& ctx, ir::Node& n, const char* attr, size_t idx) {
  bool ref = false;
  auto v = attr_ints(n, attr, &ref);
  if (ref)
    return ctx.refuse(n, std::string("attribute ") + attr +
                             " refers to an attribute of the calling function; it "
                             "cannot become a constant input");
  if (!v) return Status::ok();
  ctx.rw().remove_attribute(&n, attr);
  ctx.rw().set_input(&n, idx, ctx.const_i64(*n.graph(), &n, *v, hint(n, attr)));
  return Status::ok();
}

// Input `idx` -> attribute `attr` (ints); an absent input stays absent.
Status ints_input_to_attr(StepContext& ctx, ir::Node& n, size_t idx, const char* input, const char* attr) {
  ir::Value* v = n.input(idx);
  if (!v) return Status::ok();
  auto vals = ctx.ints(v);
  if (!vals) return not_constant(ctx, n, input, attr);
  ctx.rw().set_attribute(&n, ir::Attribute::make_ints(attr, *vals));
  ctx.rw().set_input(&n, idx, nullptr);
  return Status::ok();
}

// ---- Squeeze / Unsqueeze-13: axes attribute <-> input 1
Status step_axes13(StepContext& ctx, ir::Node& n, bool up) {
  return up ? ints_attr_to_input(ctx, n, "axes", 1) : ints_input_to_attr(ctx, n, 1, "axes", "axes");
}

// ---- Reduce*: axes attribute <-> input 1 (ReduceSum at 13, the others at 18)
Status step_reduce_axes(StepContext& ctx, ir::Node& n, bool up) {
  if (up) return ints_attr_to_input(ctx, n, "axes", 1);
  bool noop = n.attr_int("noop_with_empty_axes", 0) != 0;
  ir::Value* axes = n.input(1);
  std::optional<std::vector<int64_t>> vals;
  if (axes) {
    vals = ctx.ints(axes);
    if (!vals) return not_constant(ctx, n, "axes", "axes");
  }
  if (noop && (!vals || vals->empty()))
    return ctx.refuse(n, "noop_with_empty_axes=1 with no axes (the identity) has no equivalent in " + n.op_type +
                             " before opset " + std::to_string(n.op_type == "ReduceSum" ? 13 : 18));
  ctx.rw().remove_attribute(&n, "noop_with_empty_axes");
  if (vals && !vals->empty()) ctx.rw().set_attribute(&n, ir::Attribute::make_ints("axes", *vals));
  ctx.rw().set_input(&n, 1, nullptr);
  return Status::ok();
}

// ---- Split-13: split attribute <-> input 1
Status step_split13(StepContext& ctx, ir::Node& n, bool up) {
  return up ? ints_attr_to_input(ctx, n, "split", 1) : ints_input_to_attr(ctx, n, 1, "split", "split");
}

// ---- Split-18: num_outputs. Before 18 a Split without sizes splits evenly into as many
// parts as it has outputs; from 18 it must say so with num_outputs (and the last part may be
// smaller).
Status step_split18(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    if (!n.input(1) && !n.has_attr("num_outputs"))
      ctx.rw().set_attribute(&n, ir::Attribute::make_int("num_outputs", static_cast<int64_t>(n.num_outputs())));
    return Status::ok();
  }
  if (!n.has_attr("num_outputs")) return Status::ok();
  if (attr_is_ref(n, "num_outputs")) return ctx.refuse(n, "num_outputs refers to an attribute of the calling function");
  int64_t parts = n.attr_int("num_outputs", 0);
  ctx.rw().remove_attribute(&n, "num_outputs");
  if (n.input(1)) return Status::ok();
  auto d = ctx.dim(n.input(0), n.attr_int("axis", 0));
  if (parts > 0 && d && *d % parts == 0) return Status::ok();  // even: the same without sizes
  if (parts <= 0) return ctx.refuse(n, "num_outputs must be positive");
  if (!d) {
    // The dim is known at run time only: sizes_i = min(max(d - i * ceil(d / n), 0), ceil(d / n)),
    // an input from opset 13 on.
    if (ctx.to() < 13)
      return ctx.refuse(n, "num_outputs=" + std::to_string(parts) +
                               " splits a dim that is not known, which may be uneven: Split before opset 13 needs "
                               "constant sizes");
    ir::Graph& g = *n.graph();
    std::vector<int64_t> iota;
    for (int64_t i = 0; i < parts; ++i) iota.push_back(i);
    auto op = [&](const char* type, std::vector<ir::Value*> in, std::vector<ir::Attribute> attrs = {}) {
      return ctx.insert(&n, type, in, 1, 17, std::move(attrs))->output(0);
    };
    ir::Value* shape = op("Shape", {n.input(0)});
    ir::Value* dim = op("Gather", {shape, ctx.const_i64(g, &n, {n.attr_int("axis", 0)}, hint(n, "axis"), true)});
    ir::Value* k = ctx.const_i64(g, &n, {parts}, hint(n, "parts"), true);
    ir::Value* chunk = op("Div", {op("Add", {dim, ctx.const_i64(g, &n, {parts - 1}, hint(n, "round"), true)}), k});
    ir::Value* left = op("Sub", {dim, op("Mul", {ctx.const_i64(g, &n, iota, hint(n, "iota")), chunk})});
    ir::Value* sizes = op("Min", {op("Max", {left, ctx.const_i64(g, &n, {0}, hint(n, "zero"), true)}), chunk});
    ctx.rw().set_input(&n, 1, sizes);
    return Status::ok();
  }
  int64_t chunk = (*d + parts - 1) / parts;
  std::vector<int64_t> sizes;
  for (int64_t i = 0, left = *d; i < parts; ++i) {
    sizes.push_back(std::min(chunk, left));
    left -= sizes.back();
  }
  ctx.rw().set_input(&n, 1, ctx.const_i64(*n.graph(), &n, sizes, hint(n, "split")));
  return Status::ok();
}

// ---- Pad-11: pads and value attributes <-> pads and constant_value inputs
Status step_pad11(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    bool ref = false;
    auto pads = attr_ints(n, "pads", &ref);
    if (ref || attr_is_ref(n, "value")) return ctx.refuse(n, "pads/value refer to attributes of the calling function");
    if (!pads) return ctx.refuse(n, "Pad without pads");
    float value = n.attr_float("value", 0.0f);
    ctx.rw().remove_attribute(&n, "pads");
    ctx.rw().remove_attribute(&n, "value");
    ctx.rw().set_input(&n, 1, ctx.const_i64(*n.graph(), &n, *pads, hint(n, "pads")));
    if (value != 0.0f) {
      ir::DataType t = ctx.dtype(n.input(0));
      if (t == ir::DataType::kUndefined)
        return ctx.refuse(n, "the padding value needs the data's type, which is not known");
      ir::Value* c = ctx.const_of(*n.graph(), &n, t, {value}, hint(n, "value"));
      if (!c) return ctx.refuse(n, "cannot write the padding value as " + std::string(ir::dtype_name(t)));
      ctx.rw().set_input(&n, 2, c);
    }
    return Status::ok();
  }
  auto pads = ctx.ints(n.input(1));
  if (!pads) return not_constant(ctx, n, "pads", "pads");
  ctx.rw().set_attribute(&n, ir::Attribute::make_ints("pads", *pads));
  if (ir::Value* cv = n.input(2)) {
    auto v = ctx.floats(cv);
    if (!v || v->size() != 1) return not_constant(ctx, n, "constant_value", "value");
    if ((*v)[0] != 0) ctx.rw().set_attribute(&n, ir::Attribute::make_float("value", static_cast<float>((*v)[0])));
  }
  ctx.rw().remove_trailing_inputs(&n, 1);
  return Status::ok();
}

// ---- Pad-18: the axes input. Down: pads spread over every axis (the data's rank must be known).
Status step_pad18(StepContext& ctx, ir::Node& n, bool up) {
  if (up || !n.input(3)) return Status::ok();
  auto axes = ctx.ints(n.input(3));
  auto pads = ctx.ints(n.input(1));
  int64_t r = ctx.rank(n.input(0));
  if (!axes || !pads) return ctx.refuse(n, "Pad's axes and pads must be constants to be spread over every axis");
  if (r < 0) return ctx.refuse(n, "Pad's axes need the data's rank, which is not known");
  if (pads->size() != 2 * axes->size()) return ctx.refuse(n, "Pad's pads and axes do not match");
  std::vector<int64_t> full(static_cast<size_t>(2 * r), 0);
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t a = (*axes)[i] < 0 ? (*axes)[i] + r : (*axes)[i];
    if (a < 0 || a >= r) return ctx.refuse(n, "Pad axis out of range");
    full[static_cast<size_t>(a)] = (*pads)[i];
    full[static_cast<size_t>(a + r)] = (*pads)[i + axes->size()];
  }
  ctx.rw().set_input(&n, 1, ctx.const_i64(*n.graph(), &n, full, hint(n, "pads")));
  ctx.rw().remove_trailing_inputs(&n, 3);
  return Status::ok();
}

// ---- Pad-19: mode 'wrap' is new.
Status step_pad19(StepContext& ctx, ir::Node& n, bool up) {
  return refuse_value_before(ctx, n, up, "mode", "constant", "wrap", 19);
}

// ---- Clip-11: min and max attributes <-> inputs of the data's type
Status step_clip11(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    if (attr_is_ref(n, "min") || attr_is_ref(n, "max"))
      return ctx.refuse(n, "min/max refer to attributes of the calling function");
    ir::DataType t = ctx.dtype(n.input(0));
    const char* names[] = {"min", "max"};
    for (size_t k = 0; k < 2; ++k) {
      const ir::Attribute* a = n.attr(names[k]);
      if (!a) continue;
      if (t == ir::DataType::kUndefined)
        return ctx.refuse(n, "Clip's bounds need the input's type, which is not known");
      ir::Value* c = ctx.const_of(*n.graph(), &n, t, {a->f}, hint(n, names[k]));
      if (!c) return ctx.refuse(n, "cannot write Clip's bound as " + std::string(ir::dtype_name(t)));
      ctx.rw().set_input(&n, 1 + k, c);
      ctx.rw().remove_attribute(&n, names[k]);
    }
    return Status::ok();
  }
  const char* names[] = {"min", "max"};
  for (size_t k = 0; k < 2; ++k) {
    ir::Value* v = n.input(1 + k);
    if (!v) continue;
    auto f = ctx.floats(v);
    if (!f || f->size() != 1) return not_constant(ctx, n, names[k], names[k]);
    ctx.rw().set_attribute(&n, ir::Attribute::make_float(names[k], static_cast<float>((*f)[0])));
  }
  ctx.rw().remove_trailing_inputs(&n, 1);
  return Status::ok();
}

// ---- Slice-10: starts/ends/axes attributes <-> inputs (steps must be 1 below 10)
Status step_slice10(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    OT_RETURN_IF_ERROR(ints_attr_to_input(ctx, n, "starts", 1));
    OT_RETURN_IF_ERROR(ints_attr_to_input(ctx, n, "ends", 2));
    return ints_attr_to_input(ctx, n, "axes", 3);
  }
  if (ir::Value* s = n.input(4)) {
    auto steps = ctx.ints(s);
    if (!steps) return not_constant(ctx, n, "steps", "(none: steps are 1 before opset 10)");
    for (int64_t x : *steps)
      if (x != 1) return ctx.refuse(n, "Slice with a step other than 1 has no equivalent before opset 10");
    ctx.rw().set_input(&n, 4, nullptr);
  }
  OT_RETURN_IF_ERROR(ints_input_to_attr(ctx, n, 1, "starts", "starts"));
  OT_RETURN_IF_ERROR(ints_input_to_attr(ctx, n, 2, "ends", "ends"));
  OT_RETURN_IF_ERROR(ints_input_to_attr(ctx, n, 3, "axes", "axes"));
  ctx.rw().remove_trailing_inputs(&n, 1);
  return Status::ok();
}

// ---- TopK-10: k attribute <-> input (int64 [1])
Status step_topk10(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    if (attr_is_ref(n, "k")) return ctx.refuse(n, "k refers to an attribute of the calling function");
    int64_t k = n.attr_int("k", -1);
    ctx.rw().remove_attribute(&n, "k");
    ctx.rw().set_input(&n, 1, ctx.const_i64(*n.graph(), &n, {k}, hint(n, "k")));
    return Status::ok();
  }
  auto k = ctx.ints(n.input(1));
  if (!k || k->size() != 1) return not_constant(ctx, n, "K", "k");
  ctx.rw().set_attribute(&n, ir::Attribute::make_int("k", (*k)[0]));
  ctx.rw().remove_trailing_inputs(&n, 1);
  return Status::ok();
}

// ---- Shape-15: start/end. Down: a Slice of the whole shape after it.
Status step_shape15(StepContext& ctx, ir::Node& n, bool up) {
  if (up) return Status::ok();
  if (attr_is_ref(n, "start") || attr_is_ref(n, "end"))
    return ctx.refuse(n, "start/end refer to attributes of the calling function");
  int64_t start = n.attr_int("start", 0);
  bool has_end = n.has_attr("end");
  int64_t end = n.attr_int("end", std::numeric_limits<int64_t>::max());
  ctx.rw().remove_attribute(&n, "start");
  ctx.rw().remove_attribute(&n, "end");
  if (start == 0 && !has_end) return Status::ok();
  ir::Graph& g = *n.graph();
  ir::Value* y = n.output(0);
  ir::Value* whole = g.create_fresh_value(hint(n, "whole"));
  g.set_node_output(&n, 0, whole);
  ir::Node* s = ctx.insert(&n, "Slice",
                           {whole, ctx.const_i64(g, &n, {start}, hint(n, "start")),
                            ctx.const_i64(g, &n, {end}, hint(n, "end")), ctx.const_i64(g, &n, {0}, hint(n, "axis"))},
                           1, 13);
  ir::Value* tmp = s->output(0);
  g.set_node_output(s, 0, y);
  g.erase_value(tmp);
  return Status::ok();
}

// ---- Reshape-14: allowzero. Down: only when no 0 in the shape can be copied from the input.
Status step_reshape14(StepContext& ctx, ir::Node& n, bool up) {
  if (up || n.attr_int("allowzero", 0) == 0) return Status::ok();
  auto shape = ctx.ints(n.input(1));
  if (!shape)
    return ctx.refuse(
        n, "allowzero=1 with a shape that is not a constant: a 0 in it would mean another thing before opset 14");
  for (int64_t d : *shape)
    if (d == 0) return ctx.refuse(n, "allowzero=1 with a 0 in the shape has no equivalent before opset 14");
  ctx.rw().remove_attribute(&n, "allowzero");
  return Status::ok();
}

// ---- Dropout-12: ratio attribute <-> input; training_mode input (down: only a constant false)
Status step_dropout12(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    if (attr_is_ref(n, "ratio")) return ctx.refuse(n, "ratio refers to an attribute of the calling function");
    if (const ir::Attribute* a = n.attr("ratio")) {
      float r = a->f;
      ctx.rw().remove_attribute(&n, "ratio");
      ctx.rw().set_input(&n, 1, ctx.const_of(*n.graph(), &n, ir::DataType::kFloat, {r}, hint(n, "ratio")));
    }
    return Status::ok();
  }
  if (ir::Value* t = n.input(2)) {
    auto v = ctx.ints(t);
    const ir::Tensor* c = ctx.constant(t);
    bool is_false = c && c->dtype() == ir::DataType::kBool && c->numel() == 1 && c->bytes()[0] == 0;
    // Training with ratio 0 drops nothing: the output is the input, the mask all true, as in
    // inference (torch exports attention dropout so).
    auto ratio = ctx.floats(n.input(1));
    bool drops_nothing = ratio && ratio->size() == 1 && (*ratio)[0] == 0.0;
    if (!is_false && !(v && v->size() == 1 && (*v)[0] == 0) && !drops_nothing)
      return ctx.refuse(n, "training_mode is not a constant false: Dropout before opset 12 does not train");
  }
  if (ir::Value* r = n.input(1)) {
    auto f = ctx.floats(r);
    if (!f || f->size() != 1) return not_constant(ctx, n, "ratio", "ratio");
    ctx.rw().set_attribute(&n, ir::Attribute::make_float("ratio", static_cast<float>((*f)[0])));
  }
  if (n.attr("seed")) ctx.rw().remove_attribute(&n, "seed");  // no randomness in inference
  ctx.rw().remove_trailing_inputs(&n, 1);
  return Status::ok();
}

// ---- Constant-12: value_float(s)/value_int(s) -> a value tensor
Status step_constant12(StepContext& ctx, ir::Node& n, bool up) {
  if (up) return Status::ok();
  for (const char* name : {"value_float", "value_floats", "value_int", "value_ints"}) {
    const ir::Attribute* a = n.attr(name);
    if (!a) continue;
    if (!a->ref_attr_name.empty())
      return ctx.refuse(n, std::string(name) + " refers to an attribute of the calling function");
    std::string nm = name;
    ir::Tensor t;
    if (nm == "value_float") t = ir::Tensor::scalar_f32(a->f);
    else if (nm == "value_floats")
      t = ir::Tensor::from_vector<float>(ir::DataType::kFloat, {static_cast<int64_t>(a->floats.size())}, a->floats);
    else if (nm == "value_int") t = ir::Tensor::scalar_i64(a->i);
    else t = ir::Tensor::from_vector<int64_t>(ir::DataType::kInt64, {static_cast<int64_t>(a->ints.size())}, a->ints);
    ctx.rw().remove_attribute(&n, nm);
    ctx.rw().set_attribute(&n, ir::Attribute::make_tensor("value", std::move(t)));
    return Status::ok();
  }
  return Status::ok();
}

// ---- Gemm-11: C became optional. Down: a zero C.
Status step_gemm11(StepContext& ctx, ir::Node& n, bool up) {
  if (up || n.input(2)) return Status::ok();
  ir::DataType t = ctx.dtype(n.input(0));
  if (t == ir::DataType::kUndefined) return ctx.refuse(n, "Gemm without C needs A's type to make a zero C");
  ir::Value* c = ctx.const_of(*n.graph(), &n, t, {0.0}, hint(n, "C"));
  if (!c) return ctx.refuse(n, "cannot make a zero C of type " + std::string(ir::dtype_name(t)));
  ctx.rw().set_input(&n, 2, c);
  return Status::ok();
}

// ---- Scatter (removed at 11) <-> ScatterElements: the same operator renamed.
Status step_scatter11(StepContext& ctx, ir::Node& n, bool up) {
  if (up) ctx.rw().set_op_type(&n, "ScatterElements");
  return Status::ok();
}
Status expand_scatter_elements(StepContext& ctx, ir::Node& n) {
  ctx.rw().set_op_type(&n, "Scatter");
  ctx.made().emplace_back(&n, 10);
  return Status::ok();
}

// ---- Max/Min/Sum/Mean-8: multidirectional broadcasting. Down: the inputs must have one shape.
Status step_variadic8(StepContext& ctx, ir::Node& n, bool up) {
  if (up) return Status::ok();
  std::optional<std::vector<int64_t>> first;
  for (ir::Value* v : n.inputs()) {
    auto s = ctx.static_shape(v);
    if (!s) return ctx.refuse(n, n.op_type + " before opset 8 needs inputs of one shape, and a shape is not known");
    if (first && *s != *first) return ctx.refuse(n, n.op_type + " before opset 8 does not broadcast");
    first = s;
  }
  return Status::ok();
}

// ---- DFT-20: the axis attribute (default 1) <-> input (default -2)
Status step_dft20(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    if (attr_is_ref(n, "axis")) return ctx.refuse(n, "axis refers to an attribute of the calling function");
    int64_t axis = n.attr_int("axis", 1);
    ctx.rw().remove_attribute(&n, "axis");
    ctx.rw().set_input(&n, 2, ctx.const_i64(*n.graph(), &n, {axis}, hint(n, "axis"), true));
    return Status::ok();
  }
  int64_t axis = -2;
  if (ir::Value* a = n.input(2)) {
    auto v = ctx.ints(a);
    if (!v || v->size() != 1) return not_constant(ctx, n, "axis", "axis");
    axis = (*v)[0];
  }
  if (axis < 0) {
    int64_t r = ctx.rank(n.input(0));
    if (r < 0) return ctx.refuse(n, "a negative DFT axis needs the input's rank, which is not known");
    axis += r;
  }
  ctx.rw().set_attribute(&n, ir::Attribute::make_int("axis", axis));
  ctx.rw().remove_trailing_inputs(&n, 2);
  return Status::ok();
}

// ---- 11: negative axes became legal. Down: the rank makes them non-negative (Unsqueeze counts
// in the output's rank).
Status step_axes_nonnegative11(StepContext& ctx, ir::Node& n, bool up) {
  if (up) return Status::ok();
  for (const char* name : {"axis", "axes"}) {
    const ir::Attribute* a = n.attr(name);
    if (!a) continue;
    if (!a->ref_attr_name.empty())
      return ctx.refuse(n, std::string(name) + " refers to an attribute of the calling function");
    std::vector<int64_t> v = a->type == ir::AttrType::kInt ? std::vector<int64_t>{a->i} : a->ints;
    bool negative = false;
    for (int64_t x : v) negative |= x < 0;
    if (!negative) continue;
    int64_t r = n.op_type == "Unsqueeze" ? ctx.rank(n.output(0)) : ctx.rank(n.input(0));
    if (r < 0)
      return ctx.refuse(n, "a negative " + std::string(name) + " before opset 11 needs the rank, which is not known");
    for (int64_t& x : v)
      if (x < 0) x += r;
    if (a->type == ir::AttrType::kInt) ctx.rw().set_attribute(&n, ir::Attribute::make_int(name, v[0]));
    else ctx.rw().set_attribute(&n, ir::Attribute::make_ints(name, v));
  }
  return Status::ok();
}

// ---- Scan-9: the batch axis and sequence_lens of Scan-8 are gone; another operator in effect.
Status step_scan9(StepContext& ctx, ir::Node& n, bool) {
  return ctx.refuse(n, "Scan-8 and Scan-9 differ in their signature and batching; the converter does not rewrite them");
}

}  // namespace

ONNXTRIM_OPSET_STEP(scan9, "Scan", 9, step_scan9);
ONNXTRIM_OPSET_STEP(argmax11, "ArgMax", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(argmin11, "ArgMin", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(concat11, "Concat", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(flatten11, "Flatten", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(gather11, "Gather", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(hardmax11, "Hardmax", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(log_softmax11, "LogSoftmax", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(softmax11, "Softmax", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(onehot11, "OneHot", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(split11, "Split", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(squeeze11, "Squeeze", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(unsqueeze11, "Unsqueeze", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(topk11, "TopK", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(compress11, "Compress", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_l1_11, "ReduceL1", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_l2_11, "ReduceL2", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_log_sum11, "ReduceLogSum", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_log_sum_exp11, "ReduceLogSumExp", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_max11, "ReduceMax", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_mean11, "ReduceMean", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_min11, "ReduceMin", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_prod11, "ReduceProd", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_sum11, "ReduceSum", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(reduce_sum_square11, "ReduceSumSquare", 11, step_axes_nonnegative11);
ONNXTRIM_OPSET_STEP(dft20, "DFT", 20, step_dft20);
ONNXTRIM_OPSET_STEP(squeeze13, "Squeeze", 13, step_axes13);
ONNXTRIM_OPSET_STEP(unsqueeze13, "Unsqueeze", 13, step_axes13);
ONNXTRIM_OPSET_STEP(reduce_sum13, "ReduceSum", 13, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_mean18, "ReduceMean", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_max18, "ReduceMax", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_min18, "ReduceMin", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_prod18, "ReduceProd", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_l1_18, "ReduceL1", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_l2_18, "ReduceL2", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_log_sum18, "ReduceLogSum", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_log_sum_exp18, "ReduceLogSumExp", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(reduce_sum_square18, "ReduceSumSquare", 18, step_reduce_axes);
ONNXTRIM_OPSET_STEP(split13, "Split", 13, step_split13);
ONNXTRIM_OPSET_STEP(split18, "Split", 18, step_split18);
ONNXTRIM_OPSET_STEP(pad11, "Pad", 11, step_pad11);
ONNXTRIM_OPSET_STEP(pad18, "Pad", 18, step_pad18);
ONNXTRIM_OPSET_STEP(pad19, "Pad", 19, step_pad19);
ONNXTRIM_OPSET_STEP(clip11, "Clip", 11, step_clip11);
ONNXTRIM_OPSET_STEP(slice10, "Slice", 10, step_slice10);
ONNXTRIM_OPSET_STEP(topk10, "TopK", 10, step_topk10);
ONNXTRIM_OPSET_STEP(shape15, "Shape", 15, step_shape15);
ONNXTRIM_OPSET_STEP(reshape14, "Reshape", 14, step_reshape14);
ONNXTRIM_OPSET_STEP(dropout12, "Dropout", 12, step_dropout12);
ONNXTRIM_OPSET_STEP(constant12, "Constant", 12, step_constant12);
ONNXTRIM_OPSET_STEP(gemm11, "Gemm", 11, step_gemm11);
ONNXTRIM_OPSET_STEP(scatter11, "Scatter", 11, step_scatter11);
ONNXTRIM_OPSET_EXPANSION(scatter_elements, "ScatterElements", expand_scatter_elements);
ONNXTRIM_OPSET_STEP(max8, "Max", 8, step_variadic8);
ONNXTRIM_OPSET_STEP(min8, "Min", 8, step_variadic8);
ONNXTRIM_OPSET_STEP(sum8, "Sum", 8, step_variadic8);
ONNXTRIM_OPSET_STEP(mean8, "Mean", 8, step_variadic8);

}  // namespace onnxtrim::convert
