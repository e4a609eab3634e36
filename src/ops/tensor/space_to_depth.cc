// SpaceToDepth: moves spatial blocks into channels.
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_space_to_depth(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 4) return ctx.error("SpaceToDepth needs a 4-D input");
  int64_t bs = ctx.node().attr_int("blocksize", 0);
  if (bs <= 0) return ctx.error("SpaceToDepth needs a positive blocksize");
  int64_t n = x.dims()[0], c = x.dims()[1], h = x.dims()[2], w = x.dims()[3];
  if (h % bs || w % bs) return ctx.error("SpaceToDepth spatial dims are not divisible by blocksize");
  Dims out = {n, c * bs * bs, h / bs, w / bs};
  std::vector<int64_t> src;
  src.reserve(static_cast<size_t>(x.numel()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c * bs * bs; ++ch)
      for (int64_t y = 0; y < h / bs; ++y)
        for (int64_t z = 0; z < w / bs; ++z) {
          int64_t k = ch % c, blk = ch / c, by = blk / bs, bz = blk % bs;
          src.push_back(((b * c + k) * h + y * bs + by) * w + z * bs + bz);
        }
  ctx.set_output(0, take(x, out, src));
  return Status::ok();
}

// ---- shape inference
Status infer_space_to_depth(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  int64_t bs = ctx.node().attr_int("blocksize", 1);
  std::optional<SymShape> s;
  if (x.shape && x.shape->size() == 4 && bs > 0) {
    const SymShape& d = *x.shape;
    Expr b2 = Expr::constant(bs * bs), b = Expr::constant(bs);
    s = SymShape{d[0], d[1] * b2, Expr::floordiv(d[2], b), Expr::floordiv(d[3], b)};
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, s);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SpaceToDepth, "", "SpaceToDepth", (std::vector<int>{1, 13}), eval_space_to_depth);
ONNXTRIM_REGISTER_INFER(SpaceToDepth, "", "SpaceToDepth", infer_space_to_depth);
ONNXTRIM_REGISTER_TYPES(SpaceToDepth, "", "SpaceToDepth", "T",
                        {{"T",
                          kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
