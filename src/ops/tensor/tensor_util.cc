#include "ops/tensor/tensor_util.h"

#include "ops/fold.h"
#include "support/limits.h"

namespace onnxtrim::ops::tensor {

bool movable(DataType t) { return t == DataType::kString || ir::dtype_bits(t) >= 8; }

std::vector<int64_t> take_index(DataType dtype, const Dims& out_dims) {
  int64_t n = checked_numel(out_dims);
  uint64_t out_bytes = n < 0                        ? 0
                       : dtype == DataType::kString ? static_cast<uint64_t>(n) * sizeof(std::string)
                                                    : ir::dtype_storage_bytes(dtype, n);
  check_tensor(n, out_bytes, ir::dtype_name(dtype), out_dims);
  charge_tensor(n, static_cast<uint64_t>(n) * sizeof(int64_t), "int64 (gather index)", out_dims);
  return std::vector<int64_t>(static_cast<size_t>(n));
}

Tensor take(const Tensor& src, const Dims& out_dims, const std::vector<int64_t>& index) {
  Tensor out(src.dtype(), out_dims);
  if (src.dtype() == DataType::kString) {
    for (size_t i = 0; i < index.size(); ++i) out.strings()[i] = src.strings()[static_cast<size_t>(index[i])];
    return out;
  }
  size_t w = elem_size(src.dtype());
  if (index.empty()) return out;
  uint8_t* po = out.mutable_bytes();
  const uint8_t* ps = src.bytes();
  switch (w) {
    case 1:
      for (size_t i = 0; i < index.size(); ++i) po[i] = ps[index[i]];
      break;
    case 2:
      for (size_t i = 0; i < index.size(); ++i) std::memcpy(po + 2 * i, ps + 2 * index[i], 2);
      break;
    case 4:
      for (size_t i = 0; i < index.size(); ++i) std::memcpy(po + 4 * i, ps + 4 * index[i], 4);
      break;
    case 8:
      for (size_t i = 0; i < index.size(); ++i) std::memcpy(po + 8 * i, ps + 8 * index[i], 8);
      break;
    default:
      for (size_t i = 0; i < index.size(); ++i) std::memcpy(po + w * i, ps + w * static_cast<size_t>(index[i]), w);
      break;
  }
  return out;
}

void copy_elements(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DataType::kString) {
    for (int64_t i = 0; i < count; ++i)
      dst.strings()[static_cast<size_t>(dst_off + i)] = src.strings()[static_cast<size_t>(src_off + i)];
    return;
  }
  size_t w = elem_size(src.dtype());
  std::memcpy(dst.mutable_bytes() + w * static_cast<size_t>(dst_off), src.bytes() + w * static_cast<size_t>(src_off),
              w * static_cast<size_t>(count));
}

Tensor reshaped(const Tensor& src, const Dims& dims) {
  Tensor t = Tensor::shell(src.dtype(), dims);
  if (src.dtype() == DataType::kString) t.strings() = src.strings();
  else t.set_buffer(src.buffer(), src.buffer_offset(), src.byte_size());
  return t;
}

OpRegistration reshaping_op(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer,
                            const std::string& dims_var, FoldFn merge_pair) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer,
          .signature = "- " + dims_var,
          .types = {{dims_var, type_bits({ir::DataType::kInt64})}},
          .properties = {OpProperty::kCopiesElements},
          .folds = {{"eliminate_nop_ops", fold_same_shape_to_input}, {"fuse_consecutive_ops", merge_pair}}};
}

SymShape unknown_dims(const InferContext& ctx, int64_t n) {
  SymShape s;
  for (int64_t i = 0; i < n; ++i) s.push_back(ctx.fresh());
  return s;
}

std::optional<std::vector<int64_t>> axes_attr_or_all(const ir::Node& n, int64_t rank, bool read_attr) {
  std::vector<int64_t> axes;
  if (read_attr && n.attr("axes")) {
    for (int64_t a : n.attr_ints("axes")) {
      auto na = normalize_axis(a, rank);
      if (!na) return std::nullopt;
      axes.push_back(*na);
    }
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  return axes;
}

std::optional<std::vector<int64_t>> ints_from_input_or_attr(const KernelContext& ctx, size_t input, const char* attr) {
  if (ctx.has_input(input)) return to_int64_vector(ctx.input(input));
  if (const ir::Attribute* a = ctx.node().attr(attr)) return a->ints;
  return std::nullopt;
}

Status scatter_combine(Tensor& y, int64_t dst, const Tensor& u, int64_t src, const std::string& reduction) {
  if (reduction == "none" || reduction.empty()) {
    copy_elements(u, src, y, dst, 1);
    return Status::ok();
  }
  bool ok = dispatch(y.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto a = static_cast<compute_t<T>>(y.data<T>()[dst]);
    auto b = static_cast<compute_t<T>>(u.data<T>()[src]);
    compute_t<T> r = a;
    if (reduction == "add") r = static_cast<compute_t<T>>(a + b);
    else if (reduction == "mul") r = static_cast<compute_t<T>>(a * b);
    else if (reduction == "max") r = a > b ? a : b;
    else if (reduction == "min") r = a < b ? a : b;
    y.mutable_data<T>()[dst] = T(r);
  });
  if (!ok) return Status(ErrorCode::kUnsupported, "scatter reduction on this type");
  return Status::ok();
}

std::optional<int64_t> tuple_offset(const int64_t* tuple, int64_t q, const Dims& dims, int64_t first_axis,
                                    const Dims& strides) {
  int64_t off = 0;
  for (int64_t k = 0; k < q; ++k) {
    auto v = wrap_index(tuple[k], dims[static_cast<size_t>(first_axis + k)]);
    if (!v) return std::nullopt;
    off += *v * strides[static_cast<size_t>(k)];
  }
  return off;
}

bool constant_all_ones(const ir::Value* v) {
  auto ints = FoldContext::constant_ints(v);
  if (!ints) return false;
  for (int64_t i : *ints)
    if (i != 1) return false;
  return true;
}

bool fold_same_shape_to_input(ir::Node& n, FoldContext& fc) {
  if (!FoldContext::same_shape(n.input(0), n.output(0))) return false;
  return fc.forward(n, 0, n.input(0));
}

}  // namespace onnxtrim::ops::tensor
