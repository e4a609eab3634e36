// Det (11, 22): determinant of each square matrix in the last two dims of X [..., M, M], by LU
// decomposition with partial pivoting in double.
#include <cmath>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_det(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Det needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2 || x.dims()[x.rank() - 1] != x.dims()[x.rank() - 2])
    return ctx.error("Det needs square matrices in the last two dims");
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("Det takes float types");
  int64_t m = x.dims().back();
  Dims out(x.dims().begin(), x.dims().end() - 2);
  Tensor y(x.dtype(), out);
  int64_t count = numel_of(out);
  // float8 is a float type without a kernel here (a batch of no matrix still gives its empty result)
  if (count > 0 && !(type_bit(x.dtype()) & kFloatTypes)) return ctx.error("Det takes float types");
  std::vector<double> a(static_cast<size_t>(m * m));
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < m * m; ++i) a[static_cast<size_t>(i)] = element_as_double(x, b * m * m + i);
    double det = 1;
    for (int64_t c = 0; c < m && det != 0; ++c) {
      int64_t piv = c;
      for (int64_t r = c + 1; r < m; ++r)
        if (std::fabs(a[static_cast<size_t>(r * m + c)]) > std::fabs(a[static_cast<size_t>(piv * m + c)])) piv = r;
      if (a[static_cast<size_t>(piv * m + c)] == 0) {
        det = 0;
        break;
      }
      if (piv != c) {
        for (int64_t k = 0; k < m; ++k)
          std::swap(a[static_cast<size_t>(piv * m + k)], a[static_cast<size_t>(c * m + k)]);
        det = -det;
      }
      double d = a[static_cast<size_t>(c * m + c)];
      det *= d;
      for (int64_t r = c + 1; r < m; ++r) {
        double f = a[static_cast<size_t>(r * m + c)] / d;
        for (int64_t k = c; k < m; ++k) a[static_cast<size_t>(r * m + k)] -= f * a[static_cast<size_t>(c * m + k)];
      }
    }
    store_double(y, b, det);
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: the batch dims
Status infer_det(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
  if (x.shape && x.shape->size() >= 2) ctx.output(0).shape = SymShape(x.shape->begin(), x.shape->end() - 2);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Det, "", "Det", (std::vector<int>{11, 22}), eval_det);
ONNXTRIM_REGISTER_INFER(Det, "", "Det", infer_det);
ONNXTRIM_REGISTER_TYPES(Det, "", "Det", "T", {{"T", kFloatTypes}});

}  // namespace onnxtrim::ops
