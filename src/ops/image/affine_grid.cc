// AffineGrid (20): the sampling grid of an affine transform, for GridSample. theta [N, 2, 3]
// (2-D) or [N, 3, 4] (3-D); size (N, C, H, W) or (N, C, D, H, W). Each output position holds
// theta applied to its normalised base coordinate (x, y[, z], 1), innermost axis first; base
// coordinates are -1 + 2i/(n-1) with align_corners, else (2i + 1)/n - 1.
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

double base_coord(int64_t i, int64_t n, bool align) {
  if (align) return n > 1 ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
  return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n) - 1.0;
}

// ---- evaluate
Status eval_affine_grid(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("AffineGrid needs theta and size");
  const Tensor& theta = ctx.input(0);
  std::vector<int64_t> size = to_int64_vector(ctx.input(1));
  bool align = ctx.node().attr_int("align_corners", 0) != 0;
  if (size.size() != 4 && size.size() != 5) return ctx.error("AffineGrid size must have 4 or 5 values");
  int64_t r = static_cast<int64_t>(size.size()) - 2;
  int64_t N = size[0];
  if (theta.rank() != 3 || theta.dims()[0] != N || theta.dims()[1] != r || theta.dims()[2] != r + 1)
    return ctx.error("AffineGrid theta must be [N, 2, 3] for 2-D sizes or [N, 3, 4] for 3-D sizes");
  Dims sp(size.begin() + 2, size.end());
  Dims out_dims{N};
  out_dims.insert(out_dims.end(), sp.begin(), sp.end());
  out_dims.push_back(r);
  Tensor y(theta.dtype(), out_dims);
  int64_t plane = numel_of(sp);
  std::vector<double> base(static_cast<size_t>(r + 1));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t p = 0; p < plane; ++p) {
      // Base coordinate, innermost axis first, then 1.
      int64_t rem = p;
      for (int64_t a = r - 1; a >= 0; --a) {
        int64_t len = sp[static_cast<size_t>(a)];
        base[static_cast<size_t>(r - 1 - a)] = base_coord(rem % len, len, align);
        rem /= len;
      }
      base[static_cast<size_t>(r)] = 1.0;
      for (int64_t k = 0; k < r; ++k) {
        double acc = 0;
        for (int64_t j = 0; j <= r; ++j)
          acc += element_as_double(theta, (n * r + k) * (r + 1) + j) * base[static_cast<size_t>(j)];
        int64_t at = (n * plane + p) * r + k;
        if (theta.dtype() == DataType::kFloat) y.mutable_data<float>()[at] = static_cast<float>(acc);
        else if (theta.dtype() == DataType::kDouble) y.mutable_data<double>()[at] = acc;
        else if (theta.dtype() == DataType::kFloat16) y.mutable_data<Half>()[at] = Half(static_cast<float>(acc));
        else if (theta.dtype() == DataType::kBFloat16)
          y.mutable_data<BFloat16>()[at] = BFloat16(static_cast<float>(acc));
        else return ctx.error("AffineGrid theta must be a float type");
      }
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: [N, spatial..., r] from the propagated size
Status infer_affine_grid(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(ctx.input(0).elem, std::nullopt);
  const auto& size = ctx.input_values(1);
  if (size && (size->size() == 4 || size->size() == 5)) {
    SymShape s{(*size)[0]};
    s.insert(s.end(), size->begin() + 2, size->end());
    s.push_back(dim(static_cast<int64_t>(size->size()) - 2));
    ctx.output(0).shape = s;
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(AffineGrid, "", "AffineGrid", (std::vector<int>{20}), eval_affine_grid);
ONNXTRIM_REGISTER_INFER(AffineGrid, "", "AffineGrid", infer_affine_grid);
ONNXTRIM_REGISTER_TYPES(AffineGrid, "", "AffineGrid", "T1 T2",
                        {{"T1", kFloatTypes}, {"T2", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
