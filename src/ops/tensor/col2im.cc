// Col2Im (18): the inverse of im2col. input [N, C * prod(block), L] holds L column blocks, in
// lexicographic order of their positions on the image grid; each block element is added into
// output [N, C, image...] at position p * stride - pad_begin + k * dilation (when inside).
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_col2im(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.error("Col2Im needs input, image_shape and block_shape");
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> img = to_int64_vector(ctx.input(1)), blk = to_int64_vector(ctx.input(2));
  size_t r = img.size();
  if (r < 1 || blk.size() != r || x.rank() != 3)
    return ctx.error("Col2Im needs a 3-D input and image/block shapes of one length");
  const ir::Node& n = ctx.node();
  std::vector<int64_t> strides = n.attr_ints("strides", std::vector<int64_t>(r, 1));
  std::vector<int64_t> dil = n.attr_ints("dilations", std::vector<int64_t>(r, 1));
  std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * r, 0));
  if (strides.size() != r || dil.size() != r || pads.size() != 2 * r)
    return ctx.error("Col2Im attributes have the wrong length");
  int64_t kprod = numel_of(blk);
  int64_t N = x.dims()[0];
  if (kprod == 0 || x.dims()[1] % kprod != 0)
    return ctx.error("Col2Im input's second dim must be C * prod(block_shape)");
  int64_t C = x.dims()[1] / kprod;
  std::vector<int64_t> grid(r);
  for (size_t a = 0; a < r; ++a) {
    int64_t span = dil[a] * (blk[a] - 1) + 1;
    grid[a] = (img[a] + pads[a] + pads[a + r] - span) / strides[a] + 1;
    if (grid[a] < 1) return ctx.error("Col2Im block is larger than the padded image");
  }
  int64_t L = numel_of(grid);
  if (x.dims()[2] != L)
    return ctx.error("Col2Im input has " + std::to_string(x.dims()[2]) + " blocks, the shapes give " +
                     std::to_string(L));
  Dims out{N, C};
  out.insert(out.end(), img.begin(), img.end());
  int64_t plane = numel_of(img);
  std::vector<double> acc(static_cast<size_t>(N * C * plane), 0.0);
  Dims img_strides = strides_of(img);
  std::vector<int64_t> bpos(r), kpos(r);
  for (int64_t nn = 0; nn < N; ++nn)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t k = 0; k < kprod; ++k) {
        for (int64_t t = k, a = static_cast<int64_t>(r) - 1; a >= 0; --a) {
          kpos[static_cast<size_t>(a)] = t % blk[static_cast<size_t>(a)];
          t /= blk[static_cast<size_t>(a)];
        }
        for (int64_t l = 0; l < L; ++l) {
          for (int64_t t = l, a = static_cast<int64_t>(r) - 1; a >= 0; --a) {
            bpos[static_cast<size_t>(a)] = t % grid[static_cast<size_t>(a)];
            t /= grid[static_cast<size_t>(a)];
          }
          int64_t off = 0;
          bool inside = true;
          for (size_t a = 0; a < r; ++a) {
            int64_t p = bpos[a] * strides[a] - pads[a] + kpos[a] * dil[a];
            if (p < 0 || p >= img[a]) inside = false;
            off += p * img_strides[a];
          }
          if (inside)
            acc[static_cast<size_t>((nn * C + c) * plane + off)] +=
                element_as_double(x, (nn * x.dims()[1] + c * kprod + k) * L + l);
        }
      }
  Tensor y(x.dtype(), out);
  bool ok = dispatch(x.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = y.numel() ? y.mutable_data<T>() : nullptr;
    for (int64_t i = 0; i < y.numel(); ++i) {
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        p[i] = T(static_cast<float>(acc[static_cast<size_t>(i)]));
      else p[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
  if (!ok) return ctx.error("Col2Im does not take " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: [N, C, image_shape...]
Status infer_col2im(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  const auto& img = ctx.input_values(1);
  auto blk = ctx.input_ints(2);
  if (!img || !x.shape || x.shape->size() != 3) return Status::ok();
  SymShape s{(*x.shape)[0], ctx.fresh()};
  if (blk) {
    int64_t k = 1;
    for (int64_t b : *blk) k *= b;
    if (k > 0) s[1] = Expr::floordiv((*x.shape)[1], dim(k));
  }
  s.insert(s.end(), img->begin(), img->end());
  ctx.output(0).shape = s;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Col2Im, "", "Col2Im", (std::vector<int>{18}), eval_col2im);
ONNXTRIM_REGISTER_INFER(Col2Im, "", "Col2Im", infer_col2im);
ONNXTRIM_REGISTER_TYPES(Col2Im, "", "Col2Im", "T image_shape block_shape",
                        {{"T", kAllTensorTypes},
                         {"image_shape", type_bits({ir::DataType::kInt64})},
                         {"block_shape", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
