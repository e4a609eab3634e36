// Version steps of the normalizing operators, whose meaning changed between versions:
//
//   Softmax/LogSoftmax/Hardmax-13  before 13 the input is flattened to 2-D at `axis` and
//                                  normalized over the whole second part; from 13 over `axis`
//                                  alone. Same result when axis is the last one; otherwise
//                                  up: Flatten -> op(axis=1) -> Reshape(Shape(x)),
//                                  down: Transpose(axis <-> last) -> op(axis=-1) -> Transpose.
//   BatchNormalization-14          before 14 the number of outputs selects training (5) or
//                                  inference (1); from 14 the attribute training_mode does,
//                                  and saved_mean/saved_var are gone.
//   GroupNormalization-21          scale and bias per channel (18: per group).
//                                  up: constant per-group values repeated over their channels.
//                                  down: constant values equal within each group are taken
//                                  once per group; otherwise GroupNormalization(x, 1, 0)
//                                  followed by a per-channel Mul and Add (exact).
#include "convert/opset_context.h"
#include "ir/dtype.h"

namespace onnxtrim::convert {
namespace {

std::string hint(const ir::Node& n, const char* what) { return (n.name.empty() ? n.op_type : n.name) + "_" + what; }

// Makes `last` (a node inserted after n) produce n's output 0, and n produce a fresh value
// that `last` reads where it read `placeholder`.
ir::Value* detach_output(ir::Node& n) {
  ir::Graph& g = *n.graph();
  ir::Value* fresh = g.create_fresh_value(n.output(0)->name() + "_pre");
  ir::Value* y = n.output(0);
  g.set_node_output(&n, 0, fresh);
  (void)y;
  return fresh;
}
void take_output(ir::Node& last, ir::Value* y) {
  ir::Graph& g = *last.graph();
  ir::Value* tmp = last.output(0);
  g.set_node_output(&last, 0, y);
  g.erase_value(tmp);
}

Status step_softmax13(StepContext& ctx, ir::Node& n, bool up) {
  if (attr_is_ref(n, "axis")) return ctx.refuse(n, "axis refers to an attribute of the calling function");
  ir::Value* x = n.input(0);
  int64_t r = ctx.rank(x);
  int64_t axis = n.attr_int("axis", up ? 1 : -1);
  int64_t a = axis < 0 && r >= 0 ? axis + r : axis;
  bool last = axis == -1 || (r >= 0 && a == r - 1);
  ir::Graph& g = *n.graph();
  if (last) {
    if (!up && ctx.to() < 11 && axis < 0) {
      if (r < 0) return ctx.refuse(n, "a negative axis before opset 11 needs the input's rank, which is not known");
      ctx.rw().set_attribute(&n, ir::Attribute::make_int("axis", r - 1));
    }
    return Status::ok();
  }
  if (r < 0)
    return ctx.refuse(n, n.op_type + " over axis " + std::to_string(axis) +
                             " that may not be the last: the rank of the input is not known");
  ir::Value* y = n.output(0);
  if (up) {
    // Flatten(x, axis) -> op(axis=-1) -> Reshape(Shape(x))
    ir::Node* flat = ctx.insert(&n, "Flatten", {x}, 1, 13, {ir::Attribute::make_int("axis", a)});
    ctx.rw().set_input(&n, 0, flat->output(0));
    ctx.rw().set_attribute(&n, ir::Attribute::make_int("axis", -1));
    ir::Value* pre = detach_output(n);
    ir::Node* shape = ctx.insert(&n, "Shape", {x}, 1, 13);
    ir::Node* back = ctx.insert(&n, "Reshape", {pre, shape->output(0)}, 1, 13);
    take_output(*back, y);
    return Status::ok();
  }
  // Transpose(axis <-> last) -> op(last) -> Transpose back
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(r - 1)]);
  ir::Node* t1 = ctx.insert(&n, "Transpose", {x}, 1, 13, {ir::Attribute::make_ints("perm", perm)});
  ctx.rw().set_input(&n, 0, t1->output(0));
  ctx.rw().set_attribute(&n, ir::Attribute::make_int("axis", ctx.to() < 11 ? r - 1 : -1));
  ir::Value* pre = detach_output(n);
  ir::Node* t2 = ctx.insert(&n, "Transpose", {pre}, 1, 13, {ir::Attribute::make_ints("perm", perm)});
  take_output(*t2, y);
  (void)g;
  return Status::ok();
}

Status step_batchnorm14(StepContext& ctx, ir::Node& n, bool up) {
  auto used = [](const ir::Value* v) { return v && (v->has_uses() || v->is_graph_output()); };
  if (up) {
    bool training = false;
    for (size_t i = 1; i < n.num_outputs(); ++i) training |= n.output(i) != nullptr;
    if (!training) return Status::ok();
    for (size_t i = 3; i < n.num_outputs(); ++i)
      if (used(n.output(i)))
        return ctx.refuse(n,
                          "saved_mean/saved_var of training-mode BatchNormalization have no equivalent from opset 14");
    ctx.rw().set_attribute(&n, ir::Attribute::make_int("training_mode", 1));
    return Status::ok();
  }
  if (attr_is_ref(n, "training_mode"))
    return ctx.refuse(n, "training_mode refers to an attribute of the calling function");
  bool training = n.attr_int("training_mode", 0) != 0;
  ctx.rw().remove_attribute(&n, "training_mode");
  ir::Graph& g = *n.graph();
  if (training) {
    // Before 14, training is asked for by the statistics outputs.
    for (size_t i = 1; i < 5; ++i)
      if (!n.output(i)) g.set_node_output(&n, i, g.create_fresh_value(hint(n, i < 3 ? "running_stat" : "saved_stat")));
    return Status::ok();
  }
  for (size_t i = 1; i < n.num_outputs(); ++i)
    if (used(n.output(i)))
      return ctx.refuse(
          n, "inference-mode BatchNormalization with its statistics outputs read has no equivalent before opset 14");
  for (size_t i = 1; i < n.num_outputs(); ++i)
    if (ir::Value* o = n.output(i)) {
      g.set_node_output(&n, i, nullptr);
      g.erase_value(o);
    }
  g.trim_trailing_empty_outputs(&n);
  return Status::ok();
}

Status step_groupnorm21(StepContext& ctx, ir::Node& n, bool up) {
  if (attr_is_ref(n, "num_groups")) return ctx.refuse(n, "num_groups refers to an attribute of the calling function");
  int64_t groups = n.attr_int("num_groups", 0);
  ir::Value* x = n.input(0);
  auto channels = ctx.dim(x, 1);
  ir::DataType t = ctx.dtype(x);
  auto scale = ctx.floats(n.input(1));
  auto bias = ctx.floats(n.input(2));
  ir::Graph& g = *n.graph();
  if (groups <= 0) return ctx.refuse(n, "num_groups must be positive");
  if (up) {
    if (!scale || !bias || !channels || t == ir::DataType::kUndefined)
      return ctx.refuse(n,
                        "GroupNormalization-18 takes scale and bias per group, -21 per channel: they must be "
                        "constants and the channel count known to be repeated per channel");
    if (*channels % groups != 0 || static_cast<int64_t>(scale->size()) != groups ||
        static_cast<int64_t>(bias->size()) != groups)
      return ctx.refuse(n, "scale/bias do not hold one value per group");
    int64_t per = *channels / groups;
    std::vector<double> s, b;
    for (int64_t c = 0; c < *channels; ++c) {
      s.push_back((*scale)[static_cast<size_t>(c / per)]);
      b.push_back((*bias)[static_cast<size_t>(c / per)]);
    }
    ctx.rw().set_input(&n, 1, ctx.const_of(g, &n, t, s, hint(n, "scale"), {*channels}));
    ctx.rw().set_input(&n, 2, ctx.const_of(g, &n, t, b, hint(n, "bias"), {*channels}));
    return Status::ok();
  }
  if (t == ir::DataType::kUndefined) return ctx.refuse(n, "the input's type is not known");
  if (scale && bias && static_cast<int64_t>(scale->size()) % groups == 0 && scale->size() == bias->size()) {
    int64_t per = static_cast<int64_t>(scale->size()) / groups;
    bool uniform = true;
    std::vector<double> s, b;
    for (int64_t k = 0; k < groups && uniform; ++k) {
      for (int64_t c = k * per; c < (k + 1) * per; ++c)
        uniform &= (*scale)[static_cast<size_t>(c)] == (*scale)[static_cast<size_t>(k * per)] &&
                   (*bias)[static_cast<size_t>(c)] == (*bias)[static_cast<size_t>(k * per)];
      s.push_back((*scale)[static_cast<size_t>(k * per)]);
      b.push_back((*bias)[static_cast<size_t>(k * per)]);
    }
    if (uniform) {
      ctx.rw().set_input(&n, 1, ctx.const_of(g, &n, t, s, hint(n, "scale"), {groups}));
      ctx.rw().set_input(&n, 2, ctx.const_of(g, &n, t, b, hint(n, "bias"), {groups}));
      return Status::ok();
    }
  }
  int64_t r = ctx.rank(x);
  if (r < 2) return ctx.refuse(n, "per-channel scale/bias need the input's rank, which is not known");
  ir::Value* s_in = n.input(1);
  ir::Value* b_in = n.input(2);
  ctx.rw().set_input(
      &n, 1, ctx.const_of(g, &n, t, std::vector<double>(static_cast<size_t>(groups), 1.0), hint(n, "ones"), {groups}));
  ctx.rw().set_input(
      &n, 2, ctx.const_of(g, &n, t, std::vector<double>(static_cast<size_t>(groups), 0.0), hint(n, "zeros"), {groups}));
  std::vector<int64_t> per_channel{-1};
  for (int64_t i = 2; i < r; ++i) per_channel.push_back(1);
  ir::Value* shape = ctx.const_i64(g, &n, per_channel, hint(n, "channel_shape"));
  ir::Value* y = n.output(0);
  ir::Value* pre = detach_output(n);
  ir::Node* s = ctx.insert(&n, "Reshape", {s_in, shape}, 1, 13);
  ir::Node* b = ctx.insert(&n, "Reshape", {b_in, shape}, 1, 13);
  ir::Node* mul = ctx.insert(&n, "Mul", {pre, s->output(0)}, 1, 13);
  ir::Node* add = ctx.insert(&n, "Add", {mul->output(0), b->output(0)}, 1, 13);
  take_output(*add, y);
  return Status::ok();
}

}  // namespace

ONNXTRIM_OPSET_STEP(softmax13, "Softmax", 13, step_softmax13);
ONNXTRIM_OPSET_STEP(log_softmax13, "LogSoftmax", 13, step_softmax13);
ONNXTRIM_OPSET_STEP(hardmax13, "Hardmax", 13, step_softmax13);
ONNXTRIM_OPSET_STEP(batchnorm14, "BatchNormalization", 14, step_batchnorm14);
ONNXTRIM_OPSET_STEP(groupnorm21, "GroupNormalization", 21, step_groupnorm21);

}  // namespace onnxtrim::convert
