#include "rewrites/splat.h"

#include <cstring>

#include "ops/fold.h"
#include "passes/folding_policy.h"

namespace onnxtrim::passes {
namespace {

// The first element of t as a rank-0 tensor, when t repeats it (byte-wise).
std::optional<ir::Tensor> first_of_splat(const ir::Tensor& t) {
  // (Reading parts only: a deferred tensor, a folded weight, is not made whole to be tested.)
  if (t.numel() < 1 || t.dtype() == ir::DataType::kString || !t.buffer() || !is_splat(t)) return std::nullopt;
  int bits = ir::dtype_bits(t.dtype());
  if (bits < 8) return std::nullopt;
  ir::Tensor one(t.dtype(), {});
  t.read(0, static_cast<size_t>(bits / 8), one.mutable_bytes());
  return one;
}

}  // namespace

std::optional<Splat> splat_of(const ir::Value* v) {
  if (!v) return std::nullopt;
  if (const ir::Tensor* t = ops::FoldContext::constant(v)) {
    auto one = first_of_splat(*t);
    if (!one) return std::nullopt;
    return Splat{std::move(*one), nullptr};
  }
  const ir::Node* p = v->producer();
  if (!p || !p->is_default_domain()) return std::nullopt;
  if (p->op_type == "ConstantOfShape") {
    const ir::Attribute* a = p->attr("value");
    if (!a) {
      ir::Tensor zero(ir::DataType::kFloat, {});
      std::memset(zero.mutable_bytes(), 0, 4);
      return Splat{std::move(zero), p};
    }
    if (a->type != ir::AttrType::kTensor || !a->t || a->t->numel() != 1) return std::nullopt;
    auto one = first_of_splat(*a->t);
    if (!one) return std::nullopt;
    return Splat{std::move(*one), p};
  }
  if (p->op_type == "Expand" || p->op_type == "Tile") {
    const ir::Tensor* t = ops::FoldContext::constant(p->input(0));
    if (!t) return std::nullopt;
    auto one = first_of_splat(*t);
    if (!one) return std::nullopt;
    return Splat{std::move(*one), p};
  }
  return std::nullopt;
}

}  // namespace onnxtrim::passes
