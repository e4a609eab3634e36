// RotaryEmbedding (23): rotates the first rotary_embedding_dim (default: all) features of each
// head by position-dependent angles. Input [B, H, S, D], or [B, S, H*D] with num_heads;
// cos_cache/sin_cache are [max_position, rd/2] indexed by position_ids [B, S], or [B, S, rd/2]
// without position_ids. Pairs are (i, i + rd/2), or (2i, 2i + 1) when interleaved:
//   x1' = cos x1 - sin x2,  x2' = sin x1 + cos x2.
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_rotary_embedding(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.error("RotaryEmbedding needs X, cos_cache and sin_cache");
  const Tensor& x = ctx.input(0);
  const Tensor& cosc = ctx.input(1);
  const Tensor& sinc = ctx.input(2);
  if (!ir::dtype_is_float(x.dtype())) return ctx.error("RotaryEmbedding takes float types");
  const ir::Node& n = ctx.node();
  bool interleaved = n.attr_int("interleaved", 0) != 0;
  int64_t B, S, H, D;
  bool four = x.rank() == 4;
  if (four) {
    B = x.dims()[0];
    H = x.dims()[1];
    S = x.dims()[2];
    D = x.dims()[3];
  } else if (x.rank() == 3) {
    H = n.attr_int("num_heads", 0);
    if (H <= 0 || x.dims()[2] % H != 0)
      return ctx.error("RotaryEmbedding with 3-D input needs num_heads dividing the hidden size");
    B = x.dims()[0];
    S = x.dims()[1];
    D = x.dims()[2] / H;
  } else {
    return ctx.error("RotaryEmbedding input must be 3-D or 4-D");
  }
  int64_t rd = n.attr_int("rotary_embedding_dim", 0);
  if (rd == 0) rd = D;
  if (rd > D || rd % 2 != 0)
    return ctx.error("RotaryEmbedding rotary_embedding_dim must be even and at most the head size");
  int64_t half = rd / 2;
  bool has_pos = ctx.has_input(3);
  std::vector<int64_t> pos;
  if (has_pos) {
    const Tensor& p = ctx.input(3);
    if (p.numel() != B * S) return ctx.error("RotaryEmbedding position_ids must be [batch, sequence]");
    pos = to_int64_vector(Tensor(p));
    if (cosc.rank() != 2 || cosc.dims()[1] != half || sinc.dims() != cosc.dims())
      return ctx.error("RotaryEmbedding caches must be [max_position, rotary_embedding_dim / 2]");
    for (int64_t v : pos)
      if (v < 0 || v >= cosc.dims()[0])
        return ctx.error("RotaryEmbedding position id " + std::to_string(v) + " is out of the cache");
  } else if (cosc.rank() != 3 || cosc.dims()[0] != B || cosc.dims()[1] != S || cosc.dims()[2] != half ||
             sinc.dims() != cosc.dims()) {
    return ctx.error("RotaryEmbedding caches without position_ids must be [batch, sequence, rotary_embedding_dim / 2]");
  }
  Tensor y = x;
  y.mutable_bytes();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s) {
      int64_t row = has_pos ? pos[static_cast<size_t>(b * S + s)] : b * S + s;
      for (int64_t h = 0; h < H; ++h) {
        int64_t base = four ? ((b * H + h) * S + s) * D : ((b * S + s) * H + h) * D;
        for (int64_t i = 0; i < half; ++i) {
          double c = element_as_double(cosc, row * half + i), sn = element_as_double(sinc, row * half + i);
          int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
          double x1 = element_as_double(x, base + i1), x2 = element_as_double(x, base + i2);
          store_double(y, base + i1, c * x1 - sn * x2);
          store_double(y, base + i2, sn * x1 + c * x2);
        }
      }
    }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: the input's
Status infer_rotary_embedding(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).values.reset();
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(RotaryEmbedding, "", "RotaryEmbedding", (std::vector<int>{23}), eval_rotary_embedding);
ONNXTRIM_REGISTER_INFER(RotaryEmbedding, "", "RotaryEmbedding", infer_rotary_embedding);
ONNXTRIM_REGISTER_TYPES(RotaryEmbedding, "", "RotaryEmbedding", "T T T M",
                        {{"T", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})},
                         {"M", type_bits({ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
