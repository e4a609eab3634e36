#include "ops/cast/quantize_util.h"

#include "ops/cast/cast_util.h"

namespace onnxtrim::ops::quant {

std::vector<int64_t> scale_index(const Dims& x, const Dims& scale, int64_t axis_attr, int64_t block_size,
                                 std::string* why) {
  int64_t n = numel_of(x);
  std::vector<int64_t> idx(static_cast<size_t>(n), 0);
  int64_t sn = numel_of(scale);
  if (sn == 1 || x.empty()) return idx;  // per tensor
  auto axis = normalize_axis(axis_attr, static_cast<int64_t>(x.size()));
  if (!axis) {
    *why = "axis out of range";
    return {};
  }
  auto a = static_cast<size_t>(*axis);
  Dims st = strides_of(x);
  if (scale.size() == 1 && block_size == 0) {  // per axis
    if (scale[0] != x[a]) {
      *why = "the scale length does not match the axis";
      return {};
    }
    for (int64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = (i / st[a]) % x[a];
    return idx;
  }
  if (scale.size() != x.size() || block_size <= 0) {  // blocked
    *why = "the scale shape fits neither per-tensor, per-axis nor blocked quantization";
    return {};
  }
  Dims ss = strides_of(scale);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      int64_t c = rest / st[k];
      rest %= st[k];
      if (k == a) c /= block_size;
      if (c >= scale[k]) {
        *why = "the scale is too small for the block size";
        return {};
      }
      off += c * ss[k];
    }
    idx[static_cast<size_t>(i)] = off;
  }
  return idx;
}

std::vector<double> as_doubles(const Tensor& t) {
  Tensor d;
  std::string why;
  cast::convert(t, DataType::kDouble, true, &d, &why);
  return d.to_vector<double>();
}

Status read_operands(const KernelContext& ctx, Operands* q) {
  const Tensor& x = ctx.input(0);
  const Tensor& s = ctx.input(1);
  std::string why;
  q->index =
      scale_index(x.dims(), s.dims(), ctx.node().attr_int("axis", 1), ctx.node().attr_int("block_size", 0), &why);
  if (q->index.size() != static_cast<size_t>(x.numel())) return ctx.error(ctx.node().op_type + ": " + why);
  q->x = as_doubles(x);
  q->scale = as_doubles(s);
  q->zero.assign(q->scale.size(), 0.0);
  if (ctx.has_input(2)) q->zero = as_doubles(ctx.input(2));
  return Status::ok();
}

}  // namespace onnxtrim::ops::quant
