// Split: cuts a tensor into parts along an axis (sizes from the split input/attribute, or equal parts).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
std::optional<std::vector<int64_t>> sizes_of(const ir::Node& n, int64_t opset, int64_t dim, size_t outputs,
                                             const std::optional<std::vector<int64_t>>& split_input) {
  std::vector<int64_t> split;
  if (opset >= 13) {
    if (n.input(1)) {
      if (!split_input) return std::nullopt;
      split = *split_input;
    }
  } else {
    split = n.attr_ints("split");
  }
  if (!split.empty()) return split;
  int64_t parts =
      opset >= 18 && n.has_attr("num_outputs") ? n.attr_int("num_outputs", 1) : static_cast<int64_t>(outputs);
  if (parts <= 0) return std::nullopt;
  int64_t chunk = (dim + parts - 1) / parts;
  if (opset < 18 && dim % parts != 0) return std::nullopt;
  std::vector<int64_t> s;
  int64_t left = dim;
  for (int64_t i = 0; i < parts; ++i) {
    s.push_back(std::min(chunk, left));
    left -= s.back();
  }
  return s;
}

Status eval_split(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Split on sub-byte types");
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
  if (!axis) return ctx.error("Split axis out of range");
  int64_t dim = x.dims()[static_cast<size_t>(*axis)];
  std::optional<std::vector<int64_t>> si;
  if (ctx.has_input(1)) si = to_int64_vector(ctx.input(1));
  auto sizes = sizes_of(ctx.node(), ctx.opset(), dim, ctx.num_outputs(), si);
  if (!sizes || sizes->size() != ctx.num_outputs()) return ctx.error("Split sizes do not match the outputs");
  int64_t total = 0;
  for (int64_t s : *sizes) total += s;
  if (total != dim) return ctx.error("Split sizes do not add up to the dim");
  int64_t outer = numel_of(Dims(x.dims().begin(), x.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(x.dims().begin() + *axis + 1, x.dims().end()));
  int64_t off = 0;
  for (size_t k = 0; k < sizes->size(); ++k) {
    Dims d = x.dims();
    d[static_cast<size_t>(*axis)] = (*sizes)[k];
    Tensor y(x.dtype(), d);
    for (int64_t o = 0; o < outer; ++o)
      copy_elements(x, (o * dim + off) * inner, y, o * (*sizes)[k] * inner, (*sizes)[k] * inner);
    off += (*sizes)[k];
    ctx.set_output(k, std::move(y));
  }
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_split(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  for (size_t k = 0; k < ctx.num_outputs(); ++k) ctx.output(k) = TypeInfo::tensor(x.elem, std::nullopt);
  if (!x.shape) return Status::ok();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
  if (!axis) return ctx.error("Split axis out of range");
  const Expr& d = (*x.shape)[static_cast<size_t>(*axis)];
  std::optional<std::vector<int64_t>> si = ctx.has_input(1) ? ctx.input_ints(1) : std::nullopt;
  // Sizes given explicitly: one per output, none negative, and (when the dim is known) adding
  // up to it.
  std::optional<std::vector<int64_t>> given = si;
  if (ctx.opset() < 13 && !ctx.node().attr_ints("split").empty()) given = ctx.node().attr_ints("split");
  if (given) {
    if (given->size() != ctx.num_outputs())
      return ctx.error("Split has " + std::to_string(given->size()) + " sizes for " +
                       std::to_string(ctx.num_outputs()) + " outputs");
    int64_t total = 0;
    for (int64_t s : *given) {
      if (s < 0) return ctx.error("Split size " + std::to_string(s) + " is negative");
      total += s;
    }
    if (auto dc = d.constant_value(); dc && total != *dc)
      return ctx.error("Split sizes add up to " + std::to_string(total) + " but the split dim is " +
                       std::to_string(*dc));
  }
  std::vector<Expr> parts;
  if (auto dc = d.constant_value()) {
    auto sizes = sizes_of(ctx.node(), ctx.opset(), *dc, ctx.num_outputs(), si);
    if (sizes && sizes->size() == ctx.num_outputs())
      for (int64_t s : *sizes) parts.push_back(Expr::constant(s));
  } else if (!ctx.has_input(1) && ctx.node().attr_ints("split").empty() && ctx.num_outputs() > 0 && ctx.opset() < 18) {
    for (size_t k = 0; k < ctx.num_outputs(); ++k)
      parts.push_back(Expr::floordiv(d, Expr::constant(static_cast<int64_t>(ctx.num_outputs()))));
  } else if (si) {
    for (int64_t s : *si) parts.push_back(Expr::constant(s));
  }
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    SymShape s = *x.shape;
    s[static_cast<size_t>(*axis)] = k < parts.size() ? parts[k] : ctx.fresh();
    ctx.output(k) = TypeInfo::tensor(x.elem, s);
  }
  // Values: a propagated 1-D tensor cut into pieces of known sizes.
  if (x.values && x.rank() == 1 && parts.size() == ctx.num_outputs()) {
    size_t at = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      auto c = parts[k].constant_value();
      if (!c || *c < 0 || at + static_cast<size_t>(*c) > x.values->size()) break;
      if (ctx.has_output(k))
        ctx.output(k).values =
            std::vector<Expr>(x.values->begin() + static_cast<std::ptrdiff_t>(at),
                              x.values->begin() + static_cast<std::ptrdiff_t>(at + static_cast<size_t>(*c)));
      at += static_cast<size_t>(*c);
    }
  }
  return Status::ok();
}
// ---- local folds
// Split into one output -> the input
bool fold_single_split(ir::Node& n, FoldContext& fc) {
  if (n.num_outputs() != 1) return false;  // the one part is all of x
  return fc.forward(n, 0, n.input(0));
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Split, "", "Split", (std::vector<int>{1, 2, 11, 13, 18}), eval_split);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Split, "", "Split");
ONNXTRIM_REGISTER_INFER(Split, "", "Split", infer_split);
ONNXTRIM_REGISTER_TYPES(Split, "", "Split", "T split",
                        {{"T", kAllTensorTypes},
                         {"split", type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16,
                                              ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(Split0, "", "Split", "eliminate_nop_ops", fold_single_split);

}  // namespace onnxtrim::ops
