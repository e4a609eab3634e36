// Transpose: permutes the axes (reversed by default).
#include <unistd.h>

#include <cstring>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ONNXTRIM_AVX2_TRANSPOSE 1
#endif
#include "ir/mapped.h"
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"
#include "support/limits.h"
#include "support/parallel.h"

namespace onnxtrim::ops {
namespace {
using namespace tensor;

// ---- evaluate
std::vector<int64_t> perm_of(const ir::Node& n, int64_t rank) {
  std::vector<int64_t> p = n.attr_ints("perm");
  if (p.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) p.push_back(i);
  }
  return p;
}

bool valid_perm(const std::vector<int64_t>& p, int64_t rank) {
  if (static_cast<int64_t>(p.size()) != rank) return false;
  std::vector<bool> seen(p.size(), false);
  for (int64_t a : p) {
    if (a < 0 || a >= rank || seen[static_cast<size_t>(a)]) return false;
    seen[static_cast<size_t>(a)] = true;
  }
  return true;
}

// Calls tile(i0, i1, j0, j1) for the B x B tiles of output rows [lo, hi) and columns [0, C), in
// blocks of 256 x 256 elements: a block reads 256 source rows and writes 256 output rows, so the
// pages in use at a time stay few (a weight mapped from the model file is in 4 KB pages, one row
// or more each: walking all of its rows for every tile missed the TLB on each load).
template <int64_t B, typename Tile>
void for_each_tile(int64_t lo, int64_t hi, int64_t C, Tile&& tile) {
  constexpr int64_t BB = 256;
  for (int64_t I0 = lo; I0 < hi; I0 += BB) {
    const int64_t I1 = std::min(hi, I0 + BB);
    for (int64_t J0 = 0; J0 < C; J0 += BB) {
      const int64_t J1 = std::min(C, J0 + BB);
      for (int64_t j0 = J0; j0 < J1; j0 += B)
        for (int64_t i0 = I0; i0 < I1; i0 += B) tile(i0, std::min(I1, i0 + B), j0, std::min(J1, j0 + B));
    }
  }
}

#if defined(ONNXTRIM_AVX2_TRANSPOSE)
// 4-byte elements on a CPU with AVX2: 8 x 8 blocks through eight 256-bit registers, in tiles of
// 64 x 64 (for_each_tile); the rows and columns past the last whole 8 element by element. A fifth to a third faster
// than the 4 x 4 blocks on weight-sized matrices (bench: 5.2-5.8 -> 5.3-7.4 GB/s on one core).
__attribute__((target("avx2"))) void transpose_block8(const float* s, int64_t R, float* d, int64_t C) {
  __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + R), r2 = _mm256_loadu_ps(s + 2 * R),
         r3 = _mm256_loadu_ps(s + 3 * R), r4 = _mm256_loadu_ps(s + 4 * R), r5 = _mm256_loadu_ps(s + 5 * R),
         r6 = _mm256_loadu_ps(s + 6 * R), r7 = _mm256_loadu_ps(s + 7 * R);
  // Pairs of rows interleaved, then pairs of pairs: each 128-bit half holds a 4 x 4 transpose.
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
         t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
         t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
         u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
         u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
         u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  // The low halves make output rows 0-3, the high halves rows 4-7.
  _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(d + C, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(d + 2 * C, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(d + 3 * C, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(d + 4 * C, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(d + 5 * C, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(d + 6 * C, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(d + 7 * C, _mm256_permute2f128_ps(u3, u7, 0x31));
}

// Output rows [i0, i1) and columns [j0, j1) of one tile (d indexed by output row).
__attribute__((target("avx2"))) void transpose_tile8(const float* s, float* d, int64_t R, int64_t C, int64_t i0,
                                                     int64_t i1, int64_t j0, int64_t j1) {
  int64_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    int64_t j = j0;
    for (; j + 8 <= j1; j += 8) transpose_block8(s + (j * R + i), R, d + (i * C + j), C);
    for (; j < j1; ++j)
      for (int64_t k = 0; k < 8; ++k) std::memcpy(d + ((i + k) * C + j), s + (j * R + i + k), 4);
  }
  for (; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j) std::memcpy(d + (i * C + j), s + (j * R + i), 4);
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

// Rows [lo, hi) of y = x^T, x being C x R elements of W bytes (y is R x C), written to dst,
// where row lo begins. Tiles of T x T elements, T elements being one cache line: each source
// line is read whole into the tile and each output line written whole from it. (Reading a
// column of wider tiles straight from x thrashed the cache: weight rows are a power of two
// apart.)
template <size_t W>
void transpose2d_rows(const uint8_t* src, uint8_t* dst, int64_t R, int64_t C, int64_t lo, int64_t hi) {
#if defined(__SSE2__)
  if constexpr (W == 4) {
    // 4-byte elements (float, int32: the weights): 8 x 8 AVX2 blocks in 64 x 64 tiles where the
    // CPU has AVX2, else 4 x 4 blocks through SSE registers in 32 x 32 tiles (for_each_tile).
    // Three to four times the speed of the byte tiles below.
    const float* s = reinterpret_cast<const float*>(src);
    float* d = reinterpret_cast<float*>(dst) - lo * C;  // indexed by output row
#if defined(ONNXTRIM_AVX2_TRANSPOSE)
    if (has_avx2()) {
      for_each_tile<64>(lo, hi, C, [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
        transpose_tile8(s, d, R, C, i0, i1, j0, j1);
      });
      return;
    }
#endif
    for_each_tile<32>(lo, hi, C, [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
      int64_t i = i0;
      for (; i + 4 <= i1; i += 4) {
        int64_t j = j0;
        for (; j + 4 <= j1; j += 4) {
          const float* s0 = s + (j * R + i);
          __m128 a = _mm_loadu_ps(s0), b = _mm_loadu_ps(s0 + R), c = _mm_loadu_ps(s0 + 2 * R),
                 e = _mm_loadu_ps(s0 + 3 * R);
          _MM_TRANSPOSE4_PS(a, b, c, e);
          float* d0 = d + (i * C + j);
          _mm_storeu_ps(d0, a);
          _mm_storeu_ps(d0 + C, b);
          _mm_storeu_ps(d0 + 2 * C, c);
          _mm_storeu_ps(d0 + 3 * C, e);
        }
        for (; j < j1; ++j)
          for (int64_t k = 0; k < 4; ++k) std::memcpy(d + ((i + k) * C + j), s + (j * R + i + k), 4);
      }
      for (; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) std::memcpy(d + (i * C + j), s + (j * R + i), 4);
    });
    return;
  }
#endif
  constexpr int64_t T = W >= 64 ? 1 : static_cast<int64_t>(64 / W);
  alignas(64) uint8_t tile[T][T * W];
  for (int64_t i0 = lo; i0 < hi; i0 += T) {
    const int64_t ni = std::min(T, hi - i0);
    for (int64_t j0 = 0; j0 < C; j0 += T) {
      const int64_t nj = std::min(T, C - j0);
      for (int64_t j = 0; j < nj; ++j) {
        const uint8_t* s = src + W * static_cast<size_t>((j0 + j) * R + i0);
        for (int64_t i = 0; i < ni; ++i)
          std::memcpy(&tile[i][W * static_cast<size_t>(j)], s + W * static_cast<size_t>(i), W);
      }
      for (int64_t i = 0; i < ni; ++i)
        std::memcpy(dst + W * static_cast<size_t>((i0 + i - lo) * C + j0), tile[i], W * static_cast<size_t>(nj));
    }
  }
}

// Elements [b, e) of y = x^T (as above) into dst: whole rows by tiles, over every core when
// there are many; the part rows at either end element by element.
template <size_t W>
void transpose2d_range(const uint8_t* src, uint8_t* dst, int64_t R, int64_t C, int64_t b, int64_t e) {
  auto one = [&](int64_t k) {
    std::memcpy(dst + W * static_cast<size_t>(k - b), src + W * static_cast<size_t>((k % C) * R + k / C), W);
  };
  int64_t k = b;
  for (; k < e && k % C != 0; ++k) one(k);
  const int64_t lo = k / C, hi = e / C;
  if (lo < hi) {
    uint8_t* d = dst + W * static_cast<size_t>(k - b);
    constexpr int64_t kTile = 32;
    if (static_cast<uint64_t>(hi - lo) * static_cast<uint64_t>(C) * W < (8u << 20)) {
      transpose2d_rows<W>(src, d, R, C, lo, hi);
    } else {
      parallel_for(hi - lo, 4 * kTile, [&](int64_t a, int64_t z) {
        transpose2d_rows<W>(src, d + W * static_cast<size_t>(a * C), R, C, lo + a, lo + z);
      });
    }
    k = hi * C;
  }
  for (; k < e; ++k) one(k);
}

void transpose2d_range_bytes(size_t w, const uint8_t* src, uint8_t* dst, int64_t R, int64_t C, int64_t b, int64_t e) {
  switch (w) {
    case 1: transpose2d_range<1>(src, dst, R, C, b, e); break;
    case 2: transpose2d_range<2>(src, dst, R, C, b, e); break;
    case 4: transpose2d_range<4>(src, dst, R, C, b, e); break;
    case 8: transpose2d_range<8>(src, dst, R, C, b, e); break;
    default: transpose2d_range<16>(src, dst, R, C, b, e); break;
  }
}

// One step of a walk over the output of a transpose by p (dims `out`) in row-major order, on
// axes 0..last: `counter` moves to the next output coordinate and `off` to the input element it
// reads (in_strides: the input's strides).
inline void step_permuted(std::vector<int64_t>& counter, int64_t& off, int64_t last, const Dims& out,
                          const Dims& in_strides, const std::vector<int64_t>& p) {
  for (int64_t k = last; k >= 0; --k) {
    auto u = static_cast<size_t>(k);
    int64_t s = in_strides[static_cast<size_t>(p[u])];
    if (++counter[u] < out[u]) {
      off += s;
      return;
    }
    off -= s * (counter[u] - 1);
    counter[u] = 0;
  }
}

// Copies x into y (dims `out`, uninitialised) permuted by p, without an index table: rows of
// the output's last axis are gathered with a fixed input stride.
template <size_t W>
void transpose_rows(const uint8_t* src, uint8_t* dst, const Dims& in_strides, const std::vector<int64_t>& p,
                    const Dims& out) {
  size_t r = out.size();
  int64_t inner = r ? out[r - 1] : 1;
  int64_t step = r ? in_strides[static_cast<size_t>(p[r - 1])] : 0;
  int64_t rows = inner ? numel_of(out) / inner : 0;
  std::vector<int64_t> counter(r, 0);
  int64_t base = 0;
  for (int64_t row = 0; row < rows; ++row) {
    uint8_t* d = dst + W * static_cast<size_t>(row * inner);
    for (int64_t j = 0; j < inner; ++j)
      std::memcpy(d + W * static_cast<size_t>(j), src + W * static_cast<size_t>(base + j * step), W);
    step_permuted(counter, base, static_cast<int64_t>(r) - 2, out, in_strides, p);
  }
}

// The permutation with axes of size 1 dropped and runs of input axes that stay side by side
// merged: the sizes of the merged input axes in output order, and whether each keeps its
// place. One group: the bytes keep their order. Two groups swapped: a 2-D transpose.
struct Groups {
  std::vector<int64_t> sizes;  // in output order
  bool swapped = false;        // two groups, the second output group first in the input
};
Groups group_axes(const Dims& in, const std::vector<int64_t>& p) {
  std::vector<int64_t> q;  // non-unit input axes in output order
  for (int64_t a : p)
    if (in[static_cast<size_t>(a)] != 1) q.push_back(a);
  Groups g;
  std::vector<int64_t> first;
  for (size_t k = 0; k < q.size(); ++k) {
    // q[k] continues the group of q[k-1] when no non-unit input axis lies between them.
    bool joins = false;
    if (k > 0 && q[k] > q[k - 1]) {
      joins = true;
      for (int64_t a = q[k - 1] + 1; a < q[k]; ++a)
        if (in[static_cast<size_t>(a)] != 1) joins = false;
    }
    if (joins) {
      g.sizes.back() *= in[static_cast<size_t>(q[k])];
    } else {
      g.sizes.push_back(in[static_cast<size_t>(q[k])]);
      first.push_back(q[k]);
    }
  }
  g.swapped = g.sizes.size() == 2 && first[0] > first[1];
  return g;
}

// Results past this size are deferred when they are a 2-D transpose: made when first read,
// streamed into the output by saving (a folded weight is never whole in memory twice).
constexpr size_t kDeferBytes = size_t{256} << 10;

// A few elements of a deferred transpose (a sample of it, the first ones of a splat test)
// each lie in another row of x, so on another page of a mapped weight: read from its file
// with pread, they bring no pages of the mapping in. Elements [b, e) in bytes of y = x^T;
// false when x is not mapped (nothing is read then).
constexpr size_t kFewBytes = 64;
bool few_from_file(const Tensor& x, size_t w, int64_t R, int64_t C, uint8_t* dst, size_t b, size_t e) {
  const ir::FileRef ref = ir::file_ref(x);
  const int fd = ir::read_descriptor(ref.file);
  if (fd < 0) return false;
  for (size_t k = b / w; k < e / w; ++k) {
    const auto i = static_cast<int64_t>(k);
    const uint64_t at = ref.offset + w * static_cast<uint64_t>((i % C) * R + i / C);
    if (::pread(fd, dst + (w * k - b), w, static_cast<off_t>(at)) != static_cast<ssize_t>(w)) return false;
  }
  return true;
}

void transpose_bytes(const Tensor& x, const std::vector<int64_t>& p, const Dims& out, Tensor& y) {
  if (x.numel() == 0) return;
  const size_t w = tensor::elem_size(x.dtype());
  Groups g = group_axes(x.dims(), p);
  if (g.sizes.size() <= 1) {
    // The elements keep their order: y shares x's bytes.
    y.set_buffer(x.buffer(), x.buffer_offset(), x.byte_size());
    return;
  }
  if (g.sizes.size() == 2 && g.swapped) {
    const int64_t R = g.sizes[0], C = g.sizes[1];
    if (x.byte_size() >= kDeferBytes) {
      // x is held (shared) until the bytes are made whole or the tensor goes. The bytes count
      // against the evaluation's limits now, as if they were made.
      charge_tensor(y.numel(), y.byte_size(), ir::dtype_name(y.dtype()), out);
      auto fill = [x, R, C, w](uint8_t* dst, size_t b, size_t e) {
        if (e - b <= kFewBytes && few_from_file(x, w, R, C, dst, b, e)) return;
        transpose2d_range_bytes(w, x.unaligned_bytes(), dst, R, C, static_cast<int64_t>(b / w),
                                static_cast<int64_t>(e / w));
      };
      ir::DeferredBuffer::Source source{x.buffer(), x.buffer_offset(), x.byte_size()};
      // Whole output rows, as many as one cache line of a source row holds: a range that
      // splits rows reads each element of a part row from another line (and page) of x.
      const size_t grain = static_cast<size_t>(C) * w * std::max<size_t>(1, 64 / w);
      y.set_buffer(std::make_shared<ir::DeferredBuffer>(x.byte_size(), w, std::move(fill), std::move(source), grain), 0,
                   x.byte_size());
      return;
    }
    transpose2d_range_bytes(w, x.unaligned_bytes(), y.mutable_bytes(), R, C, 0, R * C);
    return;
  }
  Dims in_strides = strides_of(x.dims());
  const uint8_t* src = x.unaligned_bytes();  // elements are moved by memcpy: no aligned copy needed
  uint8_t* dst = y.mutable_bytes();
  switch (w) {
    case 1: transpose_rows<1>(src, dst, in_strides, p, out); break;
    case 2: transpose_rows<2>(src, dst, in_strides, p, out); break;
    case 4: transpose_rows<4>(src, dst, in_strides, p, out); break;
    case 8: transpose_rows<8>(src, dst, in_strides, p, out); break;
    default: transpose_rows<16>(src, dst, in_strides, p, out); break;
  }
}

Status eval_transpose(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!movable(x.dtype())) return ctx.unsupported("Transpose on sub-byte types");
  auto p = perm_of(ctx.node(), x.rank());
  if (!valid_perm(p, x.rank())) return ctx.error("Transpose perm is not a permutation of the axes");
  Dims out;
  for (int64_t a : p) out.push_back(x.dims()[static_cast<size_t>(a)]);
  if (x.dtype() == DataType::kString) {
    Dims in_strides = strides_of(x.dims());
    std::vector<int64_t> index(static_cast<size_t>(x.numel()));
    std::vector<int64_t> counter(out.size(), 0);
    int64_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      index[i] = off;
      step_permuted(counter, off, static_cast<int64_t>(out.size()) - 1, out, in_strides, p);
    }
    ctx.set_output(0, take(x, out, index));
    return Status::ok();
  }
  Tensor y = Tensor::shell(x.dtype(), out);
  transpose_bytes(x, p, out, y);
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_transpose(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  if (!x.shape) return unranked_output(ctx, x.elem);
  auto p = perm_of(ctx.node(), x.rank());
  if (!valid_perm(p, x.rank())) return ctx.error("Transpose perm is not a permutation of the axes");
  SymShape out;
  for (int64_t a : p) out.push_back((*x.shape)[static_cast<size_t>(a)]);
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  return Status::ok();
}
// ---- local folds
// Transpose(x, identity perm) -> x
bool fold_identity_perm(ir::Node& n, FoldContext& fc) {
  std::vector<int64_t> p = n.attr_ints("perm");
  if (p.empty()) return false;  // the default reverses (identity only for rank <= 1; needs the rank)
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return fc.forward(n, 0, n.input(0));
}

// Transpose(Transpose(x, p1), p2) -> Transpose(x, p1 o p2), or x when that is the identity
bool fold_transpose_pair(ir::Node& n, FoldContext& fc) {
  ir::Value* mid = n.input(0);
  if (!mid || !mid->producer() || mid->uses().size() != 1 || mid->is_graph_output()) return false;
  ir::Node& first = *mid->producer();
  if (first.op_type != "Transpose" || !first.is_default_domain()) return false;
  std::vector<int64_t> p1 = first.attr_ints("perm"), p2 = n.attr_ints("perm");
  if (p1.empty() || p2.empty() || p1.size() != p2.size()) return false;
  std::vector<int64_t> p(p2.size());
  bool identity = true;
  for (size_t i = 0; i < p2.size(); ++i) {
    if (p2[i] < 0 || p2[i] >= static_cast<int64_t>(p1.size())) return false;
    p[i] = p1[static_cast<size_t>(p2[i])];
    identity &= p[i] == static_cast<int64_t>(i);
  }
  ir::Value* x = first.input(0);
  if (identity) {
    if (!fc.forward(n, 0, x)) return false;
  } else {
    fc.rewriter().set_input(&n, 0, x);
    fc.rewriter().set_attribute(&n, ir::Attribute::make_ints("perm", p));
  }
  if (!mid->has_uses()) fc.rewriter().erase_node(&first);
  return true;
}
}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Transpose, "", "Transpose", (std::vector<int>{1, 13, 21, 23, 24, 25}), eval_transpose);
ONNXTRIM_REGISTER_COPIES_ELEMENTS(Transpose, "", "Transpose");
ONNXTRIM_REGISTER_INFER(Transpose, "", "Transpose", infer_transpose);
ONNXTRIM_REGISTER_FOLD(Transpose0, "", "Transpose", "eliminate_nop_ops", fold_identity_perm);
ONNXTRIM_REGISTER_FOLD(Transpose1, "", "Transpose", "fuse_consecutive_ops", fold_transpose_pair);

}  // namespace onnxtrim::ops
