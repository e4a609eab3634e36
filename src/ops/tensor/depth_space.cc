// DepthToSpace and SpaceToDepth: the two inverse moves between channels and spatial blocks of a
// 4-D input [N, C, H, W] with block size b. DepthToSpace makes [N, C/b², H·b, W·b] (the channel
// blocks in DCR or CRD order); SpaceToDepth makes [N, C·b², H/b, W/b].
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
// The input's dims and the block size, checked: a 4-D input and a positive blocksize.
struct BlockMove {
  int64_t n, c, h, w, bs;
};
Result<BlockMove> block_move(const KernelContext& ctx, const Tensor& x) {
  const std::string& op = ctx.node().op_type;
  if (x.rank() != 4) return ctx.error(op + " needs a 4-D input");
  int64_t bs = ctx.node().attr_int("blocksize", 0);
  if (bs <= 0) return ctx.error(op + " needs a positive blocksize");
  return BlockMove{x.dims()[0], x.dims()[1], x.dims()[2], x.dims()[3], bs};
}

Status eval_depth_to_space(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Result<BlockMove> m = block_move(ctx, x);
  if (!m) return m.status();
  auto [n, c, h, w, bs] = *m;
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

Status eval_space_to_depth(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Result<BlockMove> m = block_move(ctx, x);
  if (!m) return m.status();
  auto [n, c, h, w, bs] = *m;
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

// ---- shape inference: OutDims(d, b), the output dims of a 4-D input of dims d and block size b
SymShape depth_to_space_dims(const SymShape& d, int64_t bs) {
  return {d[0], Expr::floordiv(d[1], dim(bs * bs)), d[2] * dim(bs), d[3] * dim(bs)};
}
SymShape space_to_depth_dims(const SymShape& d, int64_t bs) {
  return {d[0], d[1] * dim(bs * bs), Expr::floordiv(d[2], dim(bs)), Expr::floordiv(d[3], dim(bs))};
}
template <SymShape (*OutDims)(const SymShape&, int64_t)>
Status infer_block_move(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  int64_t bs = ctx.node().attr_int("blocksize", 1);
  std::optional<SymShape> s;
  if (x.shape && x.shape->size() == 4 && bs > 0) s = OutDims(*x.shape, bs);
  ctx.output(0) = TypeInfo::tensor(x.elem, s);
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
const OpRegistration kBlockMoves[] = {
    {.op_type = "DepthToSpace",
     .versions = {1, 11, 13},
     .eval = eval_depth_to_space,
     .infer = infer_block_move<depth_to_space_dims>,
     .signature = "T",
     .types = {{"T", kAllTensorTypes}}},
    {.op_type = "SpaceToDepth",
     .versions = {1, 13},
     .eval = eval_space_to_depth,
     .infer = infer_block_move<space_to_depth_dims>,
     .signature = "T",
     .types = {{"T", kAllTensorTypes}}},
};

}  // namespace

ONNXTRIM_REGISTER_OPS(BlockMoves, kBlockMoves);

}  // namespace onnxtrim::ops
