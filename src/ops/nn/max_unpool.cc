// MaxUnpool: scatters values to the flat positions recorded by MaxPool's Indices.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// A rank read from the length of a shape input is believed up to this; a longer shape tensor
// (a Range of 10^12 fed as a shape) leaves the rank unknown rather than making 10^12 dims.
constexpr int64_t kMaxUnpoolMaxRank = 1024;

// ---- evaluate
Status eval_max_unpool(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("MaxUnpool needs inputs X and I");
  const Tensor& x = ctx.input(0);
  const Tensor& ind = ctx.input(1);
  if (x.rank() < 3) return ctx.error("MaxUnpool input must have rank >= 3");
  if (ind.dtype() != DataType::kInt64 || ind.dims() != x.dims())
    return ctx.error("MaxUnpool I must be int64 with the shape of X");
  const ir::Node& node = ctx.node();
  size_t nsp = static_cast<size_t>(x.rank() - 2);
  Dims kernel = node.attr_ints("kernel_shape");
  if (kernel.size() != nsp) return ctx.error("MaxUnpool kernel_shape must have one value per spatial axis");
  Dims strides = node.attr_ints("strides", Dims(nsp, 1));
  if (strides.empty()) strides.assign(nsp, 1);
  Dims pads = node.attr_ints("pads", Dims(2 * nsp, 0));
  if (pads.empty()) pads.assign(2 * nsp, 0);
  if (strides.size() != nsp || pads.size() != 2 * nsp) return ctx.error("MaxUnpool strides/pads have the wrong length");
  Dims out_dims{x.dims()[0], x.dims()[1]};
  for (size_t i = 0; i < nsp; ++i)
    out_dims.push_back((x.dims()[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + nsp]);
  // Indices address the default output layout; an explicit output_shape places each value at
  // the same coordinates of the requested (usually larger) output.
  Dims def_dims = out_dims;
  if (ctx.has_input(2)) {
    Dims os = to_int64_vector(ctx.input(2));
    if (os.size() != out_dims.size()) return ctx.error("MaxUnpool output_shape must have the rank of X");
    out_dims = os;
  }
  for (int64_t d : out_dims)
    if (d < 0) return ctx.error("MaxUnpool output shape is negative");
  Tensor y(x.dtype(), out_dims);
  int64_t total = y.numel();
  int64_t def_total = numel_of(def_dims);
  auto remap = [&](int64_t flat) -> int64_t {
    if (def_dims == out_dims) return flat;
    int64_t off = 0, r = flat;
    Dims coord(def_dims.size());
    for (size_t d = def_dims.size(); d-- > 0;) {
      coord[d] = r % def_dims[d];
      r /= def_dims[d];
    }
    for (size_t d = 0; d < def_dims.size(); ++d) {
      if (coord[d] >= out_dims[d]) return -1;
      off = off * out_dims[d] + coord[d];
    }
    return off;
  };
  const int64_t* pi = ind.data<int64_t>();
  bool bad = false;
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (x.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = total ? y.mutable_data<T>() : nullptr;
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t at = pi[i] >= 0 && pi[i] < def_total ? remap(pi[i]) : -1;
      if (at < 0 || at >= total) {
        bad = true;
        return;
      }
      py[at] = px[i];
    }
  });
  if (!ok) return ctx.error("MaxUnpool does not support element type " + std::string(ir::dtype_name(x.dtype())));
  if (bad) return ctx.error("MaxUnpool index out of range of the output");
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: output_shape (input 2) when known, else (in - 1) stride + kernel - pads
Status infer_max_unpool(InferContext& ctx) {
  const ir::Node& n = ctx.node();
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (ctx.has_input(2)) {
    if (auto os = ctx.input_values(2)) ctx.output(0).shape = *os;
    else if (ctx.input(2).shape && ctx.input(2).shape->size() == 1)
      if (auto r = (*ctx.input(2).shape)[0].constant_value(); r && *r <= kMaxUnpoolMaxRank) {
        SymShape s;
        for (int64_t i = 0; i < *r; ++i) s.push_back(ctx.fresh());
        ctx.output(0).shape = s;
      }
    return Status::ok();
  }
  if (!x.shape || x.shape->size() < 3) return Status::ok();
  size_t nsp = x.shape->size() - 2;
  std::vector<int64_t> kernel = n.attr_ints("kernel_shape");
  std::vector<int64_t> strides = n.attr_ints("strides", std::vector<int64_t>(nsp, 1));
  std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * nsp, 0));
  if (kernel.size() != nsp || strides.size() != nsp || pads.size() != 2 * nsp) return Status::ok();
  SymShape out{(*x.shape)[0], (*x.shape)[1]};
  for (size_t i = 0; i < nsp; ++i)
    out.push_back(((*x.shape)[i + 2] - dim(1)) * dim(strides[i]) + dim(kernel[i] - pads[i] - pads[i + nsp]));
  ctx.output(0).shape = out;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_INFER(MaxUnpool, "", "MaxUnpool", infer_max_unpool);
ONNXTRIM_REGISTER_TYPES(MaxUnpool, "", "MaxUnpool", "T1 T2 T2",
                        {{"T1", kFloatTypes}, {"T2", type_bits({ir::DataType::kInt64})}});
ONNXTRIM_REGISTER_OP(MaxUnpool, "", "MaxUnpool", (std::vector<int>{9, 11, 22}), eval_max_unpool);

}  // namespace onnxtrim::ops
