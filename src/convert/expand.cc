// Expansions: an operator with no version at the target opset is replaced by the nodes of
// its function body in the spec (written here in C++, for the op's first opset; the nodes are
// then converted down like the model's own). Each keeps the op's arithmetic order.
//
//   LayerNormalization-17   (stash_type: the statistics in float32)
//   RMSNormalization-23     Gelu-20 (none, tanh)    HardSwish-14    Mish-18    Swish-24
//   Celu-12                 GreaterOrEqual-12 / LessOrEqual-12 (Or of the strict and Equal)
//   CastLike-15             GroupNormalization-18 (InstanceNormalization over [N, G, -1])
//   CenterCropPad-18        with the dims and the target shape known: Pad then Slice, centred
//   Attention-23/24         3-D or 4-D Q/K/V, grouped heads, bool or float mask, is_causal
//                           (static lengths), softcap, scale, past/present key and value,
//                           qk_matmul_output modes 0-3, softmax_precision; nonpad_kv_seqlen
//                           is refused
#include <algorithm>
#include <cmath>

#include "convert/opset_context.h"
#include "ir/dtype.h"

namespace onnxtrim::convert {
namespace {

std::string hint(const ir::Node& n, const char* what) { return (n.name.empty() ? n.op_type : n.name) + "_" + what; }

// Builds nodes before n, written for opset `at`.
struct Builder {
  StepContext& ctx;
  ir::Node& n;
  int64_t at;
  ir::Value* op(const char* type, std::vector<ir::Value*> in, std::vector<ir::Attribute> attrs = {}) {
    return ctx.insert(&n, type, in, 1, at, std::move(attrs))->output(0);
  }
  ir::Value* scalar(ir::DataType t, double v, const char* what) {
    return ctx.const_of(*n.graph(), &n, t, {v}, hint(n, what));
  }
};

// n's output i is now computed by `v` (made by a node of the expansion). Returns the value that
// carries v's contents from now on (v itself, or n's output when v's producer took it over).
ir::Value* take_output(StepContext& ctx, ir::Node& n, size_t i, ir::Value* v) {
  ir::Value* y = n.output(i);
  if (!y) return v;
  ir::Graph& g = *n.graph();
  g.set_node_output(&n, i, nullptr);
  ir::Node* p = v->producer();
  size_t k = static_cast<size_t>(v->producer_output());
  if (p && p->graph() == &g && !v->has_uses() && !v->is_graph_output()) {
    g.set_node_output(p, k, y);
    g.erase_value(v);
    return y;
  }
  ir::Node* id = ctx.insert(&n, "Identity", {v}, 1, 13);
  ir::Value* tmp = id->output(0);
  g.set_node_output(id, 0, y);
  g.erase_value(tmp);
  return v;
}

// Drops n once its outputs are handed over.
void finish(StepContext& ctx, ir::Node& n) {
  ir::Graph& g = *n.graph();
  for (size_t i = 0; i < n.num_outputs(); ++i)
    if (ir::Value* o = n.output(i)) {
      g.set_node_output(&n, i, nullptr);
      g.erase_value(o);
    }
  ctx.rw().erase_node(&n);
}

// The end of a one-output expansion: y takes the place of n's output, and n goes.
Status finish_with(StepContext& ctx, ir::Node& n, ir::Value* y) {
  take_output(ctx, n, 0, y);
  finish(ctx, n);
  return Status::ok();
}

Status need_type(StepContext& ctx, ir::Node& n, ir::DataType t) {
  if (t == ir::DataType::kUndefined || !ir::dtype_is_float(t))
    return ctx.refuse(n, "the expansion of " + n.op_type + " needs the input's float type, which is not known");
  return Status::ok();
}

bool refs(const ir::Node& n) {
  for (const auto& a : n.attributes)
    if (!a.ref_attr_name.empty()) return true;
  return false;
}

// How an expansion over a float input 0 starts: it refuses attributes that refer to the calling
// function's and an input type that is not a known float type, and sets *t to that type.
Status expandable_float(StepContext& ctx, ir::Node& n, ir::DataType* t) {
  if (refs(n)) return ctx.refuse(n, "attributes refer to the calling function's: cannot expand");
  *t = ctx.dtype(n.input(0));
  return need_type(ctx, n, *t);
}

// Normalized axes [axis, rank) as negative indices when possible (no rank needed).
std::optional<std::vector<int64_t>> trailing_axes(StepContext& ctx, ir::Node& n, int64_t axis) {
  std::vector<int64_t> axes;
  if (axis < 0) {
    for (int64_t a = axis; a < 0; ++a) axes.push_back(a);
    return axes;
  }
  int64_t r = ctx.rank(n.input(0));
  if (r < 0) return std::nullopt;
  for (int64_t a = axis; a < r; ++a) axes.push_back(a);
  return axes;
}

// Y = (X - mean) / sqrt(var + eps) * Scale + B over axes [axis, rank)
Status expand_layer_norm(StepContext& ctx, ir::Node& n, bool rms) {
  ir::DataType t{};
  OT_RETURN_IF_ERROR(expandable_float(ctx, n, &t));
  auto axes = trailing_axes(ctx, n, n.attr_int("axis", -1));
  if (!axes) return ctx.refuse(n, "the expansion needs the input's rank, which is not known");
  float eps = n.attr_float("epsilon", 1e-5f);
  ir::DataType u = n.attr_int("stash_type", 1) == 1 ? ir::DataType::kFloat : t;
  Builder b{ctx, n, rms ? 23 : 17};
  ir::Value* x = n.input(0);
  if (u != t) x = b.op("Cast", {x}, {ir::Attribute::make_int("to", static_cast<int64_t>(u))});
  auto reduce = [&](ir::Value* v) {
    return b.op("ReduceMean", {v}, {ir::Attribute::make_ints("axes", *axes), ir::Attribute::make_int("keepdims", 1)});
  };
  ir::Value* mean = nullptr;
  ir::Value* centered = x;
  if (!rms) {
    mean = reduce(x);
    centered = b.op("Sub", {x, mean});
  }
  ir::Value* var = reduce(b.op("Mul", {centered, centered}));
  ir::Value* sd = b.op("Sqrt", {b.op("Add", {var, b.scalar(u, eps, "epsilon")})});
  ir::Value* normalized = b.op("Div", {centered, sd});
  if (u != t) normalized = b.op("Cast", {normalized}, {ir::Attribute::make_int("to", static_cast<int64_t>(t))});
  ir::Value* y = b.op("Mul", {normalized, n.input(1)});
  if (!rms && n.input(2)) y = b.op("Add", {y, n.input(2)});
  take_output(ctx, n, 0, y);
  if (!rms && n.output(1)) take_output(ctx, n, 1, mean);
  if (!rms && n.output(2)) take_output(ctx, n, 2, b.op("Reciprocal", {sd}));
  finish(ctx, n);
  return Status::ok();
}
Status expand_layernorm(StepContext& ctx, ir::Node& n) { return expand_layer_norm(ctx, n, false); }
Status expand_rmsnorm(StepContext& ctx, ir::Node& n) { return expand_layer_norm(ctx, n, true); }

// none: 0.5 * x * (1 + erf(x / sqrt(2)))
// tanh: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
Status expand_gelu(StepContext& ctx, ir::Node& n) {
  ir::DataType t{};
  OT_RETURN_IF_ERROR(expandable_float(ctx, n, &t));
  std::string approx = n.attr_string("approximate", "none");
  Builder b{ctx, n, 20};
  ir::Value* x = n.input(0);
  ir::Value* inner;
  if (approx == "tanh") {
    ir::Value* cube = b.op("Mul", {x, b.op("Mul", {x, x})});
    ir::Value* s = b.op("Add", {x, b.op("Mul", {b.scalar(t, 0.044715, "c"), cube})});
    inner = b.op("Tanh", {b.op("Mul", {b.scalar(t, std::sqrt(2.0 / M_PI), "k"), s})});
  } else if (approx == "none") {
    inner = b.op("Erf", {b.op("Div", {x, b.scalar(t, std::sqrt(2.0), "sqrt2")})});
  } else {
    return ctx.refuse(n, "unknown approximate '" + approx + "'");
  }
  ir::Value* y =
      b.op("Mul", {b.op("Mul", {b.scalar(t, 0.5, "half"), x}), b.op("Add", {b.scalar(t, 1.0, "one"), inner})});
  return finish_with(ctx, n, y);
}

// x * HardSigmoid(x, 1/6, 1/2)
Status expand_hard_swish(StepContext& ctx, ir::Node& n) {
  Builder b{ctx, n, 14};
  ir::Value* x = n.input(0);
  ir::Value* hs =
      b.op("HardSigmoid", {x}, {ir::Attribute::make_float("alpha", 1.0f / 6), ir::Attribute::make_float("beta", 0.5f)});
  return finish_with(ctx, n, b.op("Mul", {x, hs}));
}

// x * tanh(softplus(x))
Status expand_mish(StepContext& ctx, ir::Node& n) {
  Builder b{ctx, n, 18};
  ir::Value* x = n.input(0);
  return finish_with(ctx, n, b.op("Mul", {x, b.op("Tanh", {b.op("Softplus", {x})})}));
}

// x * sigmoid(alpha * x)
Status expand_swish(StepContext& ctx, ir::Node& n) {
  ir::DataType t{};
  OT_RETURN_IF_ERROR(expandable_float(ctx, n, &t));
  Builder b{ctx, n, 24};
  ir::Value* x = n.input(0);
  float alpha = n.attr_float("alpha", 1.0f);
  ir::Value* ax = alpha == 1.0f ? x : b.op("Mul", {b.scalar(t, alpha, "alpha"), x});
  return finish_with(ctx, n, b.op("Mul", {x, b.op("Sigmoid", {ax})}));
}

// alpha * Elu(x / alpha, 1)
Status expand_celu(StepContext& ctx, ir::Node& n) {
  ir::DataType t{};
  OT_RETURN_IF_ERROR(expandable_float(ctx, n, &t));
  Builder b{ctx, n, 12};
  float alpha = n.attr_float("alpha", 1.0f);
  ir::Value* a = b.scalar(t, alpha, "alpha");
  ir::Value* e = b.op("Elu", {b.op("Div", {n.input(0), a})}, {ir::Attribute::make_float("alpha", 1.0f)});
  return finish_with(ctx, n, b.op("Mul", {a, e}));
}

Status expand_or_equal(StepContext& ctx, ir::Node& n, const char* strict) {
  Builder b{ctx, n, 12};
  ir::Value* s = b.op(strict, {n.input(0), n.input(1)});
  ir::Value* e = b.op("Equal", {n.input(0), n.input(1)});
  return finish_with(ctx, n, b.op("Or", {s, e}));
}
Status expand_greater_or_equal(StepContext& ctx, ir::Node& n) { return expand_or_equal(ctx, n, "Greater"); }
Status expand_less_or_equal(StepContext& ctx, ir::Node& n) { return expand_or_equal(ctx, n, "Less"); }

// Cast to the other input's type.
Status expand_cast_like(StepContext& ctx, ir::Node& n) {
  ir::DataType t = ctx.dtype(n.input(1));
  if (t == ir::DataType::kUndefined) return ctx.refuse(n, "the type of target_type is not known");
  Builder b{ctx, n, 15};
  return finish_with(ctx, n, b.op("Cast", {n.input(0)}, {ir::Attribute::make_int("to", static_cast<int64_t>(t))}));
}

// GroupNormalization-18 (scale/bias per group):
// Reshape(InstanceNormalization(Reshape(x, [0, G, -1]), scale, bias), Shape(x))
Status expand_group_norm(StepContext& ctx, ir::Node& n) {
  if (refs(n)) return ctx.refuse(n, "attributes refer to the calling function's: cannot expand");
  int64_t groups = n.attr_int("num_groups", 0);
  if (groups <= 0) return ctx.refuse(n, "num_groups must be positive");
  Builder b{ctx, n, 18};
  ir::Value* x = n.input(0);
  ir::Value* grouped = b.op("Reshape", {x, ctx.const_i64(*n.graph(), &n, {0, groups, -1}, hint(n, "grouped"))});
  ir::Value* norm = b.op("InstanceNormalization", {grouped, n.input(1), n.input(2)},
                         {ir::Attribute::make_float("epsilon", n.attr_float("epsilon", 1e-5f))});
  return finish_with(ctx, n, b.op("Reshape", {norm, b.op("Shape", {x})}));
}

// Trilu (no function body in the spec): Where(mask, x, 0), the mask keeping j - i >= k (upper)
// or j - i <= k (lower) over the last two axes. With those dims and k known, the mask is a
// constant; otherwise it is computed from Shape(x) with Range, in integers (exact).
Status expand_trilu(StepContext& ctx, ir::Node& n) {
  ir::Value* x = n.input(0);
  ir::DataType t = ctx.dtype(x);
  if (t == ir::DataType::kUndefined)
    return ctx.refuse(n, "the expansion of Trilu needs the input's type, which is not known");
  if (attr_is_ref(n, "upper")) return ctx.refuse(n, "upper refers to an attribute of the calling function");
  bool upper = n.attr_int("upper", 1) != 0;
  ir::Graph& g = *n.graph();
  Builder b{ctx, n, 14};
  auto rows = ctx.dim(x, -2), cols = ctx.dim(x, -1);
  std::optional<int64_t> k = 0;
  if (ir::Value* kv = n.input(1)) {
    auto kk = ctx.ints(kv);
    k = kk && kk->size() == 1 ? std::optional<int64_t>((*kk)[0]) : std::nullopt;
  }
  ir::Value* mask;
  if (rows && cols && k) {
    ir::Tensor m(ir::DataType::kBool, {*rows, *cols});
    for (int64_t i = 0; i < *rows; ++i)
      for (int64_t j = 0; j < *cols; ++j)
        m.mutable_data<uint8_t>()[i * *cols + j] = upper ? (j - i >= *k) : (j - i <= *k);
    mask = ctx.make_const(g, &n, std::move(m), hint(n, "mask"));
  } else {
    ir::Value* shape = b.op("Shape", {x});
    ir::Value* zero = ctx.const_i64(g, &n, {0}, hint(n, "zero"), true);
    ir::Value* one = ctx.const_i64(g, &n, {1}, hint(n, "one"), true);
    ir::Value* r =
        b.op("Range", {zero, b.op("Gather", {shape, ctx.const_i64(g, &n, {-2}, hint(n, "rows"), true)}), one});
    ir::Value* c =
        b.op("Range", {zero, b.op("Gather", {shape, ctx.const_i64(g, &n, {-1}, hint(n, "cols"), true)}), one});
    ir::Value* ri = b.op("Unsqueeze", {r, ctx.const_i64(g, &n, {1}, hint(n, "axis1"))});
    ir::Value* ci = b.op("Unsqueeze", {c, ctx.const_i64(g, &n, {0}, hint(n, "axis0"))});
    ir::Value* diff = b.op("Sub", {ci, ri});
    ir::Value* kk = n.input(1) ? b.op("Reshape", {n.input(1), ctx.const_i64(g, &n, {}, hint(n, "scalar"))})
                               : ctx.const_i64(g, &n, {0}, hint(n, "k"), true);
    // upper keeps diff >= k, i.e. not diff < k; lower keeps diff <= k, i.e. not diff > k
    mask = b.op("Not", {b.op(upper ? "Less" : "Greater", {diff, kk})});
  }
  if (t == ir::DataType::kBool) {  // a bool input (a causal mask): And, which every runtime has
    return finish_with(ctx, n, b.op("And", {mask, x}));
  }
  ir::Value* zero = b.scalar(t, 0.0, "zero");
  if (!zero) return ctx.refuse(n, "cannot make a zero of type " + std::string(ir::dtype_name(t)));
  return finish_with(ctx, n, b.op("Where", {mask, x, zero}));
}

// Attention: the spec's pattern, step by step:
//   Q, K, V to [B, H, S, D] (3-D inputs: Reshape [0, 0, H, -1] + Transpose); K, V after the past
//   ones (Concat on axis 2: present_key/value); K, V heads repeated for grouped queries;
//   scores = (Q * sqrt(scale)) @ (K * sqrt(scale))^T; softcap * tanh(scores / softcap);
//   + mask bias (bool: 0 / -inf) + causal bias; Softmax (in softmax_precision), rows that were
//   fully masked set to 0; @ V; back to 3-D when the inputs were.
Status expand_attention(StepContext& ctx, ir::Node& n) {
  if (refs(n)) return ctx.refuse(n, "attributes refer to the calling function's: cannot expand");
  if (n.input(6)) return ctx.refuse(n, "nonpad_kv_seqlen (Attention-24) is not expanded");
  ir::Value* q = n.input(0);
  ir::Value* k = n.input(1);
  ir::Value* v = n.input(2);
  ir::DataType t = ctx.dtype(q);
  OT_RETURN_IF_ERROR(need_type(ctx, n, t));
  if (ctx.dtype(v) != t) return ctx.refuse(n, "V of another type than Q is not expanded");
  int64_t rq = ctx.rank(q), rk = ctx.rank(k), rv = ctx.rank(v);
  if (rq < 0 || rk != rq || rv != rq || (rq != 3 && rq != 4))
    return ctx.refuse(n, "the expansion of Attention needs Q, K, V of one known rank (3 or 4)");
  ir::Graph& g = *n.graph();
  Builder b{ctx, n, n.input(6) ? 24 : 23};
  auto c64 = [&](std::vector<int64_t> x, const char* what) { return ctx.const_i64(g, &n, x, hint(n, what)); };
  auto to4d = [&](ir::Value* x, int64_t heads) {
    ir::Value* r = b.op("Reshape", {x, c64({0, 0, heads, -1}, "heads")});
    return b.op("Transpose", {r}, {ir::Attribute::make_ints("perm", {0, 2, 1, 3})});
  };
  int64_t hq = n.attr_int("q_num_heads", 0), hkv = n.attr_int("kv_num_heads", 0);
  if (rq == 3) {
    if (hq <= 0 || hkv <= 0) return ctx.refuse(n, "3-D Attention needs q_num_heads and kv_num_heads");
    q = to4d(q, hq);
    k = to4d(k, hkv);
    v = to4d(v, hkv);
  } else {
    auto a = ctx.dim(n.input(0), 1), c = ctx.dim(n.input(1), 1);
    if (!a || !c) return ctx.refuse(n, "the expansion of Attention needs the numbers of heads known");
    hq = *a;
    hkv = *c;
  }
  // head size: Q's last dim (4-D) or hidden / heads (3-D)
  std::optional<int64_t> head;
  if (auto d = ctx.dim(n.input(0), -1)) head = rq == 4 ? *d : *d / hq;
  if (ir::Value* pk = n.input(4)) k = b.op("Concat", {pk, k}, {ir::Attribute::make_int("axis", 2)});
  if (ir::Value* pv = n.input(5)) v = b.op("Concat", {pv, v}, {ir::Attribute::make_int("axis", 2)});
  if (n.output(1)) k = take_output(ctx, n, 1, k);
  if (n.output(2)) v = take_output(ctx, n, 2, v);
  if (hkv <= 0 || hq % hkv != 0) return ctx.refuse(n, "q_num_heads must be a multiple of kv_num_heads");
  auto repeat = [&](ir::Value* x) -> ir::Value* {
    if (hq == hkv) return x;
    int64_t group = hq / hkv;
    ir::Value* shape = b.op("Shape", {x});
    auto part = [&](std::vector<int64_t> idx, const char* what) { return b.op("Gather", {shape, c64(idx, what)}); };
    ir::Value* wide = b.op("Concat", {part({0, 1}, "bh"), c64({group}, "group"), part({2, 3}, "sd")},
                           {ir::Attribute::make_int("axis", 0)});
    ir::Value* e = b.op("Expand", {b.op("Unsqueeze", {x, c64({2}, "axis2")}), wide});
    ir::Value* merged =
        b.op("Concat", {part({0}, "b"), c64({hq}, "hq"), part({2, 3}, "sd2")}, {ir::Attribute::make_int("axis", 0)});
    return b.op("Reshape", {e, merged});
  };
  k = repeat(k);
  v = repeat(v);
  double scale;
  if (const ir::Attribute* a = n.attr("scale")) {
    scale = a->f;
  } else {
    if (!head || *head <= 0) return ctx.refuse(n, "the default scale needs the head size known");
    scale = 1.0 / std::sqrt(static_cast<double>(*head));
  }
  ir::Value* root = b.scalar(t, std::sqrt(scale), "sqrt_scale");
  ir::Value* kt = b.op("Transpose", {b.op("Mul", {k, root})}, {ir::Attribute::make_ints("perm", {0, 1, 3, 2})});
  ir::Value* scores = b.op("MatMul", {b.op("Mul", {q, root}), kt});
  int64_t mode = n.attr_int("qk_matmul_output_mode", 0);
  ir::Value* qk_out = mode == 0 ? scores : nullptr;
  float softcap = n.attr_float("softcap", 0.0f);
  if (softcap > 0) {
    ir::Value* cap = b.scalar(t, softcap, "softcap");
    scores = b.op("Mul", {cap, b.op("Tanh", {b.op("Div", {scores, cap})})});
  }
  if (mode == 1) qk_out = scores;
  bool masked = false;
  if (ir::Value* m = n.input(3)) {
    ir::DataType mt = ctx.dtype(m);
    if (mt == ir::DataType::kBool) {
      scores = b.op("Add", {scores, b.op("Where", {m, b.scalar(t, 0.0, "zero"), b.scalar(t, -INFINITY, "ninf")})});
    } else if (mt == t) {
      scores = b.op("Add", {scores, m});
    } else {
      return ctx.refuse(n, "an attention mask of type " + std::string(ir::dtype_name(mt)) + " is not expanded");
    }
    masked = true;
  }
  if (n.attr_int("is_causal", 0) != 0) {
    auto ql = ctx.dim(n.input(0), rq == 4 ? 2 : 1), kl = ctx.dim(n.input(1), rq == 4 ? 2 : 1);
    std::optional<int64_t> past = 0;
    if (n.input(4)) past = ctx.dim(n.input(4), 2);
    if (!ql || !kl || !past) return ctx.refuse(n, "is_causal needs the sequence lengths known to be expanded");
    int64_t total = *kl + *past;
    std::vector<double> bias;
    for (int64_t i = 0; i < *ql; ++i)
      for (int64_t j = 0; j < total; ++j) bias.push_back(j <= i + *past ? 0.0 : -INFINITY);
    scores = b.op("Add", {scores, ctx.const_of(g, &n, t, bias, hint(n, "causal"), {*ql, total})});
    masked = true;
  }
  if (mode == 2) qk_out = scores;
  ir::DataType sp = t;
  if (n.has_attr("softmax_precision")) sp = static_cast<ir::DataType>(n.attr_int("softmax_precision", 0));
  if (sp != t) scores = b.op("Cast", {scores}, {ir::Attribute::make_int("to", static_cast<int64_t>(sp))});
  ir::Value* probs = b.op("Softmax", {scores}, {ir::Attribute::make_int("axis", -1)});
  if (masked)  // a row masked everywhere gives 0, not NaN
    probs = b.op("Where", {b.op("IsNaN", {probs}), ctx.const_of(g, &n, sp, {0.0}, hint(n, "zero_p")), probs});
  if (sp != t) probs = b.op("Cast", {probs}, {ir::Attribute::make_int("to", static_cast<int64_t>(t))});
  if (mode == 3) qk_out = probs;
  ir::Value* y = b.op("MatMul", {probs, v});
  if (rq == 3) {
    ir::Value* tr = b.op("Transpose", {y}, {ir::Attribute::make_ints("perm", {0, 2, 1, 3})});
    y = b.op("Reshape", {tr, c64({0, 0, -1}, "merge")});
  }
  take_output(ctx, n, 0, y);
  if (n.output(3)) {
    if (!qk_out) return ctx.refuse(n, "qk_matmul_output_mode " + std::to_string(mode) + " is not expanded");
    take_output(ctx, n, 3, qk_out);
  }
  finish(ctx, n);
  return Status::ok();
}

// CenterCropPad: each listed axis padded (with zeros) or cropped to its target size, the
// difference split with the smaller half first.
Status expand_center_crop_pad(StepContext& ctx, ir::Node& n) {
  bool ref = false;
  auto axes = attr_ints(n, "axes", &ref);
  if (ref) return ctx.refuse(n, "axes refers to an attribute of the calling function");
  auto dims = ctx.static_shape(n.input(0));
  auto target = ctx.ints(n.input(1));
  if (!dims || !target)
    return ctx.refuse(n, "the expansion of CenterCropPad needs the input's dims and the target shape known");
  int64_t r = static_cast<int64_t>(dims->size());
  std::vector<int64_t> ax;
  if (axes) {
    for (int64_t a : *axes) ax.push_back(a < 0 ? a + r : a);
  } else {
    for (int64_t a = 0; a < r; ++a) ax.push_back(a);
  }
  if (ax.size() != target->size()) return ctx.refuse(n, "shape and axes differ in length");
  std::vector<int64_t> pads(static_cast<size_t>(2 * r), 0), starts, ends, slice_axes;
  for (size_t i = 0; i < ax.size(); ++i) {
    if (ax[i] < 0 || ax[i] >= r) return ctx.refuse(n, "CenterCropPad axis out of range");
    int64_t d = (*dims)[static_cast<size_t>(ax[i])], want = (*target)[i];
    if (want > d) {
      pads[static_cast<size_t>(ax[i])] = (want - d) / 2;
      pads[static_cast<size_t>(ax[i] + r)] = want - d - (want - d) / 2;
    } else if (want < d) {
      starts.push_back((d - want) / 2);
      ends.push_back((d - want) / 2 + want);
      slice_axes.push_back(ax[i]);
    }
  }
  ir::Graph& g = *n.graph();
  Builder b{ctx, n, 18};
  ir::Value* y = n.input(0);
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }))
    y = b.op("Pad", {y, ctx.const_i64(g, &n, pads, hint(n, "pads"))});
  if (!slice_axes.empty())
    y = b.op("Slice", {y, ctx.const_i64(g, &n, starts, hint(n, "starts")), ctx.const_i64(g, &n, ends, hint(n, "ends")),
                       ctx.const_i64(g, &n, slice_axes, hint(n, "axes"))});
  if (y == n.input(0)) y = b.op("Identity", {y});
  return finish_with(ctx, n, y);
}

}  // namespace

ONNXTRIM_OPSET_EXPANSION(center_crop_pad, "CenterCropPad", expand_center_crop_pad);
ONNXTRIM_OPSET_EXPANSION(attention, "Attention", expand_attention);
ONNXTRIM_OPSET_EXPANSION(trilu, "Trilu", expand_trilu);
ONNXTRIM_OPSET_EXPANSION(layernorm, "LayerNormalization", expand_layernorm);
ONNXTRIM_OPSET_EXPANSION(rmsnorm, "RMSNormalization", expand_rmsnorm);
ONNXTRIM_OPSET_EXPANSION(gelu, "Gelu", expand_gelu);
ONNXTRIM_OPSET_EXPANSION(hard_swish, "HardSwish", expand_hard_swish);
ONNXTRIM_OPSET_EXPANSION(mish, "Mish", expand_mish);
ONNXTRIM_OPSET_EXPANSION(swish, "Swish", expand_swish);
ONNXTRIM_OPSET_EXPANSION(celu, "Celu", expand_celu);
ONNXTRIM_OPSET_EXPANSION(greater_or_equal, "GreaterOrEqual", expand_greater_or_equal);
ONNXTRIM_OPSET_EXPANSION(less_or_equal, "LessOrEqual", expand_less_or_equal);
ONNXTRIM_OPSET_EXPANSION(cast_like, "CastLike", expand_cast_like);
ONNXTRIM_OPSET_EXPANSION(group_norm, "GroupNormalization", expand_group_norm);

}  // namespace onnxtrim::convert
