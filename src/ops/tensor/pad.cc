// Pad: pads with a constant, or by reflecting, repeating the edge, or wrapping around (pads as
// an attribute before opset 11, inputs after; axes from opset 18).
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

struct PadSpec {
  std::vector<int64_t> pads;  // begin..., end... for every axis
  std::string mode;
};

std::optional<PadSpec> spec_of(const ir::Node& n, int64_t opset, int64_t rank,
                               const std::function<std::optional<std::vector<int64_t>>(size_t)>& ints) {
  PadSpec s;
  s.mode = n.attr_string("mode", "constant");
  std::vector<int64_t> p;
  if (opset < 11) {
    p = n.attr_ints(opset < 2 ? "paddings" : "pads");
  } else {
    auto v = ints(1);
    if (!v) return std::nullopt;
    p = *v;
  }
  std::vector<int64_t> axes;
  if (opset >= 18 && n.input(3)) {
    auto a = ints(3);
    if (!a) return std::nullopt;
    axes = *a;
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (p.size() != 2 * axes.size()) return std::nullopt;
  s.pads.assign(static_cast<size_t>(2 * rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalize_axis(axes[i], rank);
    if (!a) return std::nullopt;
    s.pads[static_cast<size_t>(*a)] = p[i];
    s.pads[static_cast<size_t>(*a + rank)] = p[i + axes.size()];
  }
  return s;
}

// ---- evaluate
Status eval_pad(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Pad on sub-byte types");
  int64_t r = x.rank();
  auto spec = spec_of(ctx.node(), ctx.opset(), r, [&](size_t i) -> std::optional<std::vector<int64_t>> {
    if (!ctx.has_input(i)) return std::nullopt;
    return to_int64_vector(ctx.input(i));
  });
  if (!spec) return ctx.error("Pad pads/axes are malformed");
  Dims out;
  for (int64_t i = 0; i < r; ++i) {
    int64_t d = 0;
    if (__builtin_add_overflow(x.dims()[static_cast<size_t>(i)], spec->pads[static_cast<size_t>(i)], &d) ||
        __builtin_add_overflow(d, spec->pads[static_cast<size_t>(i + r)], &d))
      return ctx.error("Pad pads of axis " + std::to_string(i) + " overflow a 64-bit size");
    if (d < 0) return ctx.error("Pad removes more than the dim holds");
    out.push_back(d);
  }
  // The constant: an input from opset 11 (absent or empty: zero), the value attribute before.
  Tensor fill(x.dtype(), {});
  if (ctx.opset() >= 11 && ctx.has_input(2) && ctx.input(2).numel() > 0) {
    copy_elements(ctx.input(2), 0, fill, 0, 1);
  } else if (ctx.opset() < 11) {
    float v = ctx.node().attr_float("value", 0.0f);
    dispatch(x.dtype(), kFloats, [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill.mutable_data<T>()[0] = T(static_cast<compute_t<T>>(v));
    });
  }
  const std::string& mode = spec->mode;
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return ctx.error("Pad mode '" + mode + "' is unknown");
  Tensor y(x.dtype(), out);
  Dims st = strides_of(x.dims());
  // Negative pads crop first: along each axis the padding modes see the window
  // [lo, lo + len) of the input, then the positive pads are added around it.
  Dims lo(static_cast<size_t>(r)), len(static_cast<size_t>(r)), before(static_cast<size_t>(r));
  for (int64_t k = 0; k < r; ++k) {
    auto u = static_cast<size_t>(k);
    int64_t pb = spec->pads[u], pe = spec->pads[static_cast<size_t>(k + r)];
    lo[u] = std::max<int64_t>(0, -pb);
    len[u] = x.dims()[u] - lo[u] - std::max<int64_t>(0, -pe);
    before[u] = std::max<int64_t>(0, pb);
    if (len[u] < 0) return ctx.error("Pad removes more than the dim holds");
  }
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  int64_t n = numel_of(out);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    bool inside = true;
    for (int64_t k = 0; k < r && inside; ++k) {
      auto u = static_cast<size_t>(k);
      int64_t d = len[u];
      int64_t p = c[u] - before[u];  // position in the cropped window
      if (p < 0 || p >= d) {
        if (mode == "constant" || d == 0) {
          inside = false;
          break;
        }
        if (mode == "edge") {
          p = p < 0 ? 0 : d - 1;
        } else if (mode == "wrap") {
          p = ((p % d) + d) % d;
        } else if (d == 1) {  // reflect, the edge not repeated
          p = 0;
        } else {
          int64_t period = 2 * (d - 1);
          p = ((p % period) + period) % period;
          if (p >= d) p = period - p;
        }
      }
      off += (lo[u] + p) * st[u];
    }
    if (inside) copy_elements(x, off, y, i, 1);
    else copy_elements(fill, 0, y, i, 1);
    next_coordinate(c, out);
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_pad(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  if (!x.shape) return unranked_output(ctx, x.elem);
  auto spec = spec_of(ctx.node(), ctx.opset(), x.rank(), [&](size_t i) { return ctx.input_ints(i); });
  SymShape out;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!spec) {
      out.push_back(ctx.fresh());
      continue;
    }
    auto u = static_cast<size_t>(i);
    // Pads from the file may be anything: their sum, and the padded size of a static dim, must
    // fit in 64 bits (the fuzzer's pads of ~2^62 overflowed here).
    int64_t both = 0, padded = 0;
    std::optional<int64_t> dim = (*x.shape)[u].constant_value();
    if (__builtin_add_overflow(spec->pads[u], spec->pads[static_cast<size_t>(i + x.rank())], &both) ||
        (dim && __builtin_add_overflow(*dim, both, &padded)))
      return ctx.error("Pad pads of axis " + std::to_string(i) + " overflow a 64-bit size");
    out.push_back((*x.shape)[u] + Expr::constant(both));
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  return Status::ok();
}

// ---- local folds
// Pad with all-zero pads -> x
bool fold_zero_pad(ir::Node& n, FoldContext& fc) {
  std::vector<int64_t> pads;
  if (fc.opset() < 11) {
    pads = n.attr_ints(fc.opset() < 2 ? "paddings" : "pads");
    if (pads.empty()) return false;
  } else {
    auto p = FoldContext::constant_ints(n.input(1));
    if (!p) return false;
    pads = *p;
  }
  for (int64_t p : pads)
    if (p != 0) return false;
  return fc.forward(n, 0, n.input(0));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Pad, "", "Pad", (std::vector<int>{1, 2, 11, 13, 18, 19, 21, 23, 24, 25}), eval_pad);
ONNXTRIM_REGISTER_INFER(Pad, "", "Pad", infer_pad);
ONNXTRIM_REGISTER_TYPES(Pad, "", "Pad", "T pads T Tind",
                        {{"T", kAnyType},
                         {"pads", type_bits({ir::DataType::kInt64})},
                         {"Tind", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_FOLD(PadZero, "", "Pad", "eliminate_nop_ops", fold_zero_pad);

}  // namespace onnxtrim::ops
