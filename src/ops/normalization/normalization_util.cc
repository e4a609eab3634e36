#include "ops/normalization/normalization_util.h"

#include <cmath>

namespace onnxtrim::ops::norm {

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  dispatch(t.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<compute_t<T>>(p[i]));
  });
  return out;
}

Tensor from_doubles(DataType dtype, const Dims& dims, const std::vector<double>& v) {
  Tensor out(dtype, dims);
  dispatch(dtype, kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (v.empty()) return;
    T* p = out.mutable_data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = T(static_cast<compute_t<T>>(v[i]));
  });
  return out;
}

bool is_float_type(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

Status check_float_input(const KernelContext& ctx, size_t required, const char* missing, int64_t min_rank) {
  for (size_t i = 0; i < required; ++i)
    if (!ctx.has_input(i)) return ctx.error(missing);
  const Tensor& x = ctx.input(0);
  const std::string& op = ctx.node().op_type;
  if (!is_float_type(x.dtype()))
    return ctx.error(op + " does not support element type " + std::string(ir::dtype_name(x.dtype())));
  if (x.rank() < min_rank) return ctx.error(op + " input must have rank >= " + std::to_string(min_rank));
  return Status::ok();
}

Status trailing_axes(const KernelContext& ctx, const Tensor& x, TrailingAxes* t) {
  const ir::Node& node = ctx.node();
  auto axis = normalize_axis(node.attr_int("axis", -1), x.rank());
  if (!axis) return ctx.error(node.op_type + " axis out of range");
  t->axis = *axis;
  t->eps = node.attr_float("epsilon", 1e-5f);
  t->stash = static_cast<DataType>(node.attr_int("stash_type", 1));
  if (!is_float_type(t->stash)) return ctx.error(node.op_type + " stash_type must be a float type");
  t->norm_dims.assign(x.dims().begin() + *axis, x.dims().end());
  t->outer = 1;
  for (int64_t d = 0; d < *axis; ++d) t->outer *= x.dims()[static_cast<size_t>(d)];
  t->inner = numel_of(t->norm_dims);
  return Status::ok();
}

bool broadcast_param(const Tensor& p, const Dims& dims, std::vector<double>* out) {
  auto b = broadcast_shapes(p.dims(), dims);
  if (!b || *b != dims) return false;
  std::vector<double> v = to_doubles(p);
  int64_t n = numel_of(dims);
  out->resize(static_cast<size_t>(n));
  BroadcastIndex it(p.dims(), dims);
  for (int64_t i = 0; i < n; ++i, it.next()) (*out)[static_cast<size_t>(i)] = v[static_cast<size_t>(it.offset())];
  return true;
}

int64_t spatial_size(const Tensor& x) {
  int64_t sp = 1;
  for (int64_t d = 2; d < x.rank(); ++d) sp *= x.dims()[static_cast<size_t>(d)];
  return sp;
}

void mean_and_inv_std(const double* p, int64_t n, double eps, double* mean, double* inv_std) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i];
  double m = n ? s / static_cast<double>(n) : 0;
  double q = 0;
  for (int64_t i = 0; i < n; ++i) q += (p[i] - m) * (p[i] - m);
  double var = n ? q / static_cast<double>(n) : 0;
  *mean = m;
  *inv_std = 1.0 / std::sqrt(var + eps);
}

}  // namespace onnxtrim::ops::norm
