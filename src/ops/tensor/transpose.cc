// Transpose: permutes the axes (reversed by default).
#include <cstring>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include "ir/mapped.h"
#include "ops/fold.h"
#include "ops/tensor/tensor_util.h"
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

// Copies x into y (dims `out`, uninitialised) permuted by p, without an index table: rows of
// the output's last axis are gathered with a fixed input stride; 2-D transposes go by tiles.
template <size_t W>
void transpose_rows(const uint8_t* src, uint8_t* dst, const Dims& in_strides, const std::vector<int64_t>& p, const Dims& out,
                    const Tensor& y) {
  size_t r = out.size();
  if (r == 2 && p[0] == 1 && p[1] == 0) {
    int64_t R = out[0], C = out[1];  // y[i][j] = x[j][i], x is C x R
    // Tiles of T x T elements, T elements being one cache line: each source line is read
    // whole into the tile and each output line written whole from it. (Reading a column of
    // wider tiles straight from x thrashed the cache: weight rows are a power of two apart.)
    constexpr int64_t T = W >= 64 ? 1 : static_cast<int64_t>(64 / W);
#if defined(__SSE2__)
    // 4-byte elements (float, int32: the weights): 4 x 4 blocks through SSE registers, in
    // 32 x 32 tiles, in blocks of 256 x 256 elements: a block reads 256 source rows and writes
    // 256 output rows, so the pages in use at a time stay few (a weight mapped from the model
    // file or the scratch file is in 4 KB pages, one row or more each: walking all of its rows
    // for every tile missed the TLB on each load). Three to four times the speed of the byte
    // tiles below.
    auto rows4 = [&, R = R, C = C, src = src, dst = dst](int64_t lo, int64_t hi) {
      // (R, C and the pointers are copies: the SSE stores may alias anything, and would make
      // the compiler reload captured references after each of them.)
      constexpr int64_t B = 32, BB = 256;
      for (int64_t I0 = lo; I0 < hi; I0 += BB) {
        const int64_t I1 = std::min(hi, I0 + BB);
        for (int64_t J0 = 0; J0 < C; J0 += BB) {
          const int64_t J1 = std::min(C, J0 + BB);
          for (int64_t j0 = J0; j0 < J1; j0 += B) {
            const int64_t j1 = std::min(J1, j0 + B);
            for (int64_t i0 = I0; i0 < I1; i0 += B) {
              const int64_t i1 = std::min(I1, i0 + B);
              int64_t i = i0;
              for (; i + 4 <= i1; i += 4) {
                int64_t j = j0;
                for (; j + 4 <= j1; j += 4) {
                  const float* s0 = reinterpret_cast<const float*>(src) + (j * R + i);
                  __m128 a = _mm_loadu_ps(s0), b = _mm_loadu_ps(s0 + R), c = _mm_loadu_ps(s0 + 2 * R),
                         d = _mm_loadu_ps(s0 + 3 * R);
                  _MM_TRANSPOSE4_PS(a, b, c, d);
                  float* d0 = reinterpret_cast<float*>(dst) + (i * C + j);
                  _mm_storeu_ps(d0, a);
                  _mm_storeu_ps(d0 + C, b);
                  _mm_storeu_ps(d0 + 2 * C, c);
                  _mm_storeu_ps(d0 + 3 * C, d);
                }
                for (; j < j1; ++j)
                  for (int64_t k = 0; k < 4; ++k)
                    std::memcpy(dst + 4 * static_cast<size_t>((i + k) * C + j), src + 4 * static_cast<size_t>(j * R + i + k), 4);
              }
              for (; i < i1; ++i)
                for (int64_t j = j0; j < j1; ++j)
                  std::memcpy(dst + 4 * static_cast<size_t>(i * C + j), src + 4 * static_cast<size_t>(j * R + i), 4);
            }
          }
        }
      }
    };
#endif
    auto rows = [&](int64_t lo, int64_t hi) {
#if defined(__SSE2__)
      if constexpr (W == 4) {
        rows4(lo, hi);
        return;
      }
#endif
      alignas(64) uint8_t tile[T][T * W];
      for (int64_t i0 = lo; i0 < hi; i0 += T) {
        const int64_t ni = std::min(T, hi - i0);
        for (int64_t j0 = 0; j0 < C; j0 += T) {
          const int64_t nj = std::min(T, C - j0);
          for (int64_t j = 0; j < nj; ++j) {
            const uint8_t* s = src + W * static_cast<size_t>((j0 + j) * R + i0);
            for (int64_t i = 0; i < ni; ++i) std::memcpy(&tile[i][W * static_cast<size_t>(j)], s + W * static_cast<size_t>(i), W);
          }
          for (int64_t i = 0; i < ni; ++i)
            std::memcpy(dst + W * static_cast<size_t>((i0 + i) * C + j0), tile[i], W * static_cast<size_t>(nj));
        }
      }
    };
    if (static_cast<uint64_t>(R) * static_cast<uint64_t>(C) * W < (8u << 20)) {
      rows(0, R);
      return;
    }
    // Large transposes (weights behind an exporter's Transpose) use every core, band by band
    // (about 32 MB of output each): a band's pages are faulted in front to back before the
    // threads write them, and handed back once written, so a folded weight, which lives in the
    // scratch file, never sits in memory whole (for a tensor in the heap this changes nothing).
    const size_t ps = 4096;
    const int64_t row_bytes = C * static_cast<int64_t>(W);
    const int64_t band = std::max<int64_t>(4 * T, ((int64_t{32} << 20) / std::max<int64_t>(row_bytes, 1)) / T * T);
    for (int64_t lo = 0; lo < R; lo += band) {
      const int64_t hi = std::min(R, lo + band);
      const size_t off = static_cast<size_t>(lo * row_bytes), n = static_cast<size_t>((hi - lo) * row_bytes);
      for (size_t k = 0; k < n; k += ps) static_cast<volatile uint8_t*>(dst + off)[k] = 0;
      parallel_for(hi - lo, 4 * T, [&](int64_t a, int64_t e) { rows(lo + a, lo + e); });
      ir::release_pages(y, off, n);
    }
    return;
  }
  int64_t inner = r ? out[r - 1] : 1;
  int64_t step = r ? in_strides[static_cast<size_t>(p[r - 1])] : 0;
  int64_t rows = inner ? numel_of(out) / inner : 0;
  std::vector<int64_t> counter(r, 0);
  int64_t base = 0;
  for (int64_t row = 0; row < rows; ++row) {
    uint8_t* d = dst + W * static_cast<size_t>(row * inner);
    for (int64_t j = 0; j < inner; ++j) std::memcpy(d + W * static_cast<size_t>(j), src + W * static_cast<size_t>(base + j * step), W);
    for (int64_t k = static_cast<int64_t>(r) - 2; k >= 0; --k) {
      auto u = static_cast<size_t>(k);
      int64_t s = in_strides[static_cast<size_t>(p[u])];
      if (++counter[u] < out[u]) {
        base += s;
        break;
      }
      base -= s * (counter[u] - 1);
      counter[u] = 0;
    }
  }
}

void transpose_bytes(const Tensor& x, const std::vector<int64_t>& p, const Dims& out, Tensor& y) {
  if (x.numel() == 0) return;
  Dims in_strides = strides_of(x.dims());
  const uint8_t* src = x.unaligned_bytes();  // elements are moved by memcpy: no aligned copy needed
  uint8_t* dst = y.mutable_bytes();
  switch (tensor::elem_size(x.dtype())) {
    case 1: transpose_rows<1>(src, dst, in_strides, p, out, y); break;
    case 2: transpose_rows<2>(src, dst, in_strides, p, out, y); break;
    case 4: transpose_rows<4>(src, dst, in_strides, p, out, y); break;
    case 8: transpose_rows<8>(src, dst, in_strides, p, out, y); break;
    default: transpose_rows<16>(src, dst, in_strides, p, out, y); break;
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
      for (int64_t k = static_cast<int64_t>(out.size()) - 1; k >= 0; --k) {
        auto u = static_cast<size_t>(k);
        int64_t s = in_strides[static_cast<size_t>(p[u])];
        if (++counter[u] < out[u]) {
          off += s;
          break;
        }
        off -= s * (counter[u] - 1);
        counter[u] = 0;
      }
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
  if (!x.shape) {
    ctx.output(0) = TypeInfo::tensor(x.elem, std::nullopt);
    return Status::ok();
  }
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
