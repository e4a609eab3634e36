#include "ops/fold.h"

#include <cstring>

#include "ops/kernel_util.h"

namespace onnxtrim::ops {

const ir::Tensor* FoldContext::constant(const ir::Value* v) {
  if (!v) return nullptr;
  // An initializer that is also a graph input is an overridable default, not a constant, from
  // IR version 4 on; before it, every initializer had to be listed as an input.
  if (v->is_initializer())
    return v->is_graph_input() && v->graph()->model()->ir_version >= 4 ? nullptr : v->initializer();
  const ir::Node* p = v->producer();
  if (p && p->op_type == "Constant" && p->is_default_domain()) {
    const ir::Attribute* a = p->attr("value");
    if (a && a->type == ir::AttrType::kTensor && a->t) return a->t.get();
  }
  return nullptr;
}

std::optional<std::vector<int64_t>> FoldContext::constant_ints(const ir::Value* v) {
  const ir::Tensor* t = constant(v);
  if (!t || (t->dtype() != ir::DataType::kInt64 && t->dtype() != ir::DataType::kInt32)) return std::nullopt;
  return to_int64_vector(*t);
}

bool FoldContext::constant_all_equal(const ir::Value* v, double x) {
  const ir::Tensor* t = constant(v);
  if (!t || t->dtype() == ir::DataType::kString || !t->buffer()) return false;
  bool ok = true;
  bool known = dispatch(t->dtype(), kAll, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // A piece at a time (Tensor::scan): a folded weight is not made whole to be told apart.
    ok = t->scan(sizeof(T), [&](const uint8_t* p, size_t n) {
      for (size_t k = 0; k < n; k += sizeof(T)) {
        T v;
        std::memcpy(&v, p + k, sizeof(T));
        double e = static_cast<double>(static_cast<compute_t<T>>(v));
        // Bitwise: -0.0 is not +0.0 (x + -0 differs from x for x = -0 ... only +0 vs -0 matters to callers).
        if (e != x || (e == 0 && std::signbit(e) != std::signbit(x))) return false;
      }
      return true;
    });
  });
  return known && ok;
}

bool FoldContext::same_shape(const ir::Value* a, const ir::Value* b, bool same_dtype) {
  if (!a || !b) return false;
  const ir::Type& x = a->type;
  const ir::Type& y = b->type;
  if (!x.is_tensor() || !y.is_tensor() || !x.has_shape || !y.has_shape || x.dims.size() != y.dims.size()) return false;
  if (same_dtype && (x.elem == ir::DataType::kUndefined || x.elem != y.elem)) return false;
  for (size_t i = 0; i < x.dims.size(); ++i) {
    const ir::Dim& p = x.dims[i];
    const ir::Dim& q = y.dims[i];
    if (p.is_known() && q.is_known() && *p.value == *q.value) continue;
    if (!p.is_known() && !q.is_known() && !p.param.empty() && p.param == q.param) continue;
    return false;
  }
  return true;
}

bool FoldContext::forward(ir::Node& n, size_t i, ir::Value* with) {
  ir::Value* out = n.output(i);
  if (!out || !with) return false;
  if (!rw_.replace_all_uses_with(out, with)) return false;
  bool unused = true;
  for (const ir::Value* o : n.outputs())
    if (o && (o->has_uses() || o->is_graph_output())) unused = false;
  if (unused) rw_.erase_node(&n);
  return true;
}

}  // namespace onnxtrim::ops
