// The rotation patterns the rotary fusions share (rewrites/rotary.h).
#include "rewrites/rotary.h"

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrites/slice_spec.h"

namespace onnxtrim::passes::rotary {
namespace {

using ops::SymShape;

// v is proved [B, H, S, D / 2, 2] for x of xs = [B, H, S, D].
bool split_last_axis(const ir::Value* v, const SymShape& xs, const ShapeInference& si) {
  const ops::TypeInfo* f = si.facts(v);
  if (!f || f->rank() != 5) return false;
  const SymShape& s = *f->shape;
  return s[0] == xs[0] && s[1] == xs[1] && s[2] == xs[2] && s[3].constant_value() == *xs[3].constant_value() / 2 &&
         s[4].constant_value() == 2;
}

// v is x[.., k::2] of the last axis (of size d), read only by `by`: a Slice of x from k (or
// k - d) to the end with step 2, or Gather(Reshape(x, [.., d / 2, 2]), k, axis -1).
bool picks(const ir::Value* v, const ir::Node* by, const ir::Value* x, int64_t k, int64_t d, const ShapeInference& si,
           int64_t opset) {
  if (const ir::Node* s = private_producer(v, "Slice", by)) {
    if (s->input(0) != x) return false;
    auto w = slice_windows(*s, opset, 4);
    if (!w || w->size() != 1 || w->begin()->first != 3) return false;
    const AxisWindow& a = w->begin()->second;
    return a.step == 2 && (a.start == k || a.start == k - d) && a.end >= d;
  }
  const ir::Node* g = private_producer(v, "Gather", by);
  if (!g) return false;
  const int64_t axis = g->attr_int("axis", 0);
  if (axis != -1 && axis != 4) return false;
  const ir::Tensor* idx = ops::FoldContext::constant(g->input(1));
  if (!idx || idx->rank() != 0 || !idx->bytes() || !ir::dtype_is_signed(idx->dtype())) return false;
  const int64_t i = ops::to_int64_vector(*idx)[0];
  if (i != k && i != k - 2) return false;
  const ir::Node* r = g->input(0) ? g->input(0)->producer() : nullptr;
  const ops::TypeInfo* fx = si.facts(x);
  return is_op(r, "Reshape") && r->input(0) == x && split_last_axis(g->input(0), *fx->shape, si);
}

}  // namespace

// The axes of an Unsqueeze (attribute before opset 13, a constant input after); empty when
// they are not constant.
std::vector<int64_t> unsqueeze_axes(const ir::Node& u) {
  if (const ir::Attribute* a = u.attr("axes")) return a->ints;
  if (const ir::Tensor* t = u.num_inputs() > 1 && u.input(1) ? ops::FoldContext::constant(u.input(1)) : nullptr)
    return ops::to_int64_vector(*t);
  return {};
}

// rot = Reshape(Concat(Unsqueeze(Neg(odd), -1), Unsqueeze(even, -1), axis -1)) of x's shape,
// each read only by the next; odd and even pick x's elements 1::2 and 0::2 of the last axis.
bool rotate_every_two_of(const ir::Value* rot, const ir::Node* by, const ir::Value* x, const ShapeInference& si,
                         int64_t opset) {
  const ops::TypeInfo* fx = si.facts(x);
  if (!fx || fx->rank() != 4) return false;
  const SymShape& xs = *fx->shape;
  auto d = xs[3].constant_value();
  if (!d || *d % 2 != 0 || *d <= 0) return false;
  const ir::Node* flat = private_producer(rot, "Reshape", by);
  if (!flat) return false;
  const ops::TypeInfo* fr = si.facts(rot);
  if (!fr || fr->rank() != 4 || *fr->shape != xs) return false;
  const ir::Node* cat = private_producer(flat->input(0), "Concat", flat);
  if (!cat || cat->num_inputs() != 2 || !split_last_axis(cat->output(0), xs, si)) return false;
  const int64_t axis = cat->attr_int("axis", 0);
  if (axis != -1 && axis != 4) return false;
  const ir::Node* u_odd = private_producer(cat->input(0), "Unsqueeze", cat);
  const ir::Node* u_even = private_producer(cat->input(1), "Unsqueeze", cat);
  for (const ir::Node* u : {u_odd, u_even}) {
    if (!u) return false;
    const std::vector<int64_t> axes = unsqueeze_axes(*u);
    if (axes != std::vector<int64_t>{-1} && axes != std::vector<int64_t>{4}) return false;
  }
  const ir::Node* neg = private_producer(u_odd->input(0), "Neg", u_odd);
  return neg && picks(neg->input(0), neg, x, 1, *d, si, opset) && picks(u_even->input(0), u_even, x, 0, *d, si, opset);
}

}  // namespace onnxtrim::passes::rotary
