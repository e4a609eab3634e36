// SplitToSequence: splits a tensor into a sequence (by sizes, or into pieces of 1 with keepdims).
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"
#include "ops/sequence/sequence_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_split_to_sequence(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
  if (!axis) return ctx.error("SplitToSequence axis out of range");
  int64_t dim = x.dims()[static_cast<size_t>(*axis)];
  std::vector<int64_t> sizes;
  bool keep = true;
  if (ctx.has_input(1)) {
    const Tensor& s = ctx.input(1);
    std::vector<int64_t> v = to_int64_vector(s);
    if (s.rank() == 0) {
      if (v[0] <= 0) return ctx.error("SplitToSequence split must be positive");
      for (int64_t left = dim; left > 0; left -= v[0]) sizes.push_back(std::min(v[0], left));
    } else {
      sizes = v;
    }
  } else {
    sizes.assign(static_cast<size_t>(dim), 1);
    keep = ctx.node().attr_int("keepdims", 1) != 0;
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != dim) return ctx.error("SplitToSequence sizes do not add up to the dim");
  int64_t outer = numel_of(Dims(x.dims().begin(), x.dims().begin() + *axis));
  int64_t inner = numel_of(Dims(x.dims().begin() + *axis + 1, x.dims().end()));
  std::vector<RuntimeValue> parts;
  int64_t off = 0;
  for (int64_t s : sizes) {
    Dims d = x.dims();
    d[static_cast<size_t>(*axis)] = s;
    Tensor y(x.dtype(), d);
    for (int64_t o = 0; o < outer; ++o) tensor::copy_elements(x, (o * dim + off) * inner, y, o * s * inner, s * inner);
    off += s;
    if (!keep) {
      d.erase(d.begin() + *axis);
      y = tensor::reshaped(y, d);
    }
    parts.push_back(RuntimeValue::of(std::move(y)));
  }
  ctx.set_output_value(0, RuntimeValue::sequence(std::move(parts), ir::Type::tensor_unranked(x.dtype())));
  return Status::ok();
}

// ---- shape inference
// The elements keep the input's rank (without split and keepdims = 0: one less) and its dims
// off the axis. The axis dim is claimed only when every element has it: 1 without split, the
// size of equal parts (a scalar split dividing the dim, or split values all equal); otherwise it
// is an unknown (which SequenceAt does not share between the values it reads).
Status infer_split_to_sequence(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = sequence::sequence_of(TypeInfo::tensor(x.elem, std::nullopt));
  if (!x.shape) return Status::ok();
  auto axis = normalize_axis(ctx.node().attr_int("axis", 0), x.rank());
  if (!axis) return Status::ok();
  SymShape d = *x.shape;
  const auto a = static_cast<size_t>(*axis);
  if (!ctx.has_input(1)) {
    if (ctx.node().attr_int("keepdims", 1) != 0) d[a] = Expr::constant(1);
    else d.erase(d.begin() + *axis);
  } else {
    const TypeInfo& split = ctx.input(1);
    std::optional<int64_t> part;
    auto v = split.static_values();
    auto dim = d[a].constant_value();
    if (v && !v->empty() && split.rank() == 0) {
      if (dim && (*v)[0] > 0 && *dim % (*v)[0] == 0) part = (*v)[0];
    } else if (v && !v->empty() && split.rank() == 1) {
      part = (*v)[0];
      for (int64_t e : *v)
        if (e != *part) {
          part.reset();
          break;
        }
    }
    d[a] = part ? Expr::constant(*part) : ctx.fresh();
  }
  ctx.output(0).inner->shape = std::move(d);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SplitToSequence, "", "SplitToSequence", (std::vector<int>{11, 24}), eval_split_to_sequence);
ONNXTRIM_REGISTER_INFER(SplitToSequence, "", "SplitToSequence", infer_split_to_sequence);
ONNXTRIM_REGISTER_TYPES(SplitToSequence, "", "SplitToSequence", "T I",
                        {{"T", kAllTensorTypes}, {"I", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
