// DepthToSpace: moves channel blocks into spatial blocks (DCR or CRD order).
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
Status eval_depth_to_space(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 4) return ctx.error("DepthToSpace needs a 4-D input");
  int64_t bs = ctx.node().attr_int("blocksize", 0);
  if (bs <= 0) return ctx.error("DepthToSpace needs a positive blocksize");
  int64_t n = x.dims()[0], c = x.dims()[1], h = x.dims()[2], w = x.dims()[3];
  bool crd = ctx.node().attr_string("mode", "DCR") == "CRD";
  if (c % (bs * bs)) return ctx.error("DepthToSpace channels are not divisible by blocksize^2");
  int64_t oc = c / (bs * bs);
  Dims out = {n, oc, h * bs, w * bs};
  std::vector<int64_t> src;
  src.reserve(static_cast<size_t>(x.numel()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < oc; ++k)
      for (int64_t y = 0; y < h * bs; ++y)
        for (int64_t z = 0; z < w * bs; ++z) {
          int64_t by = y % bs, bz = z % bs;
          int64_t ch = crd ? k * bs * bs + by * bs + bz : (by * bs + bz) * oc + k;
          src.push_back(((b * c + ch) * h + y / bs) * w + z / bs);
        }
  ctx.set_output(0, take(x, out, src));
  return Status::ok();
}

// ---- shape inference
Status infer_depth_to_space(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  int64_t bs = ctx.node().attr_int("blocksize", 1);
  std::optional<SymShape> s;
  if (x.shape && x.shape->size() == 4 && bs > 0) {
    const SymShape& d = *x.shape;
    Expr b2 = Expr::constant(bs * bs), b = Expr::constant(bs);
    s = SymShape{d[0], Expr::floordiv(d[1], b2), d[2] * b, d[3] * b};
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, s);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(DepthToSpace, "", "DepthToSpace", (std::vector<int>{1, 11, 13}), eval_depth_to_space);
ONNXTRIM_REGISTER_INFER(DepthToSpace, "", "DepthToSpace", infer_depth_to_space);
ONNXTRIM_REGISTER_TYPES(DepthToSpace, "", "DepthToSpace", "T",
                        {{"T",
                          kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
