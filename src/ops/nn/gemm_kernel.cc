#include "ops/nn/gemm_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

// Strict IEEE order: a contracted a * b + c would round once where the reference rounds twice.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace onnxtrim::ops::nn {

namespace {

// Four float lanes: wasm SIMD's v128 in the web build, the compiler's vector extension
// elsewhere (SSE on x86-64). Only loads, stores, splats, multiplies and adds.
#if defined(__wasm_simd128__)
using gemmk_v4 = v128_t;
inline gemmk_v4 gemmk_load(const float* p) { return wasm_v128_load(p); }
inline void gemmk_store(float* p, gemmk_v4 v) { wasm_v128_store(p, v); }
inline gemmk_v4 gemmk_splat(float x) { return wasm_f32x4_splat(x); }
inline gemmk_v4 gemmk_mul(gemmk_v4 a, gemmk_v4 b) { return wasm_f32x4_mul(a, b); }
inline gemmk_v4 gemmk_add(gemmk_v4 a, gemmk_v4 b) { return wasm_f32x4_add(a, b); }
#else
typedef float gemmk_v4 __attribute__((vector_size(16)));
inline gemmk_v4 gemmk_load(const float* p) {
  gemmk_v4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void gemmk_store(float* p, gemmk_v4 v) { std::memcpy(p, &v, sizeof v); }
inline gemmk_v4 gemmk_splat(float x) { return gemmk_v4{x, x, x, x}; }
inline gemmk_v4 gemmk_mul(gemmk_v4 a, gemmk_v4 b) { return a * b; }
inline gemmk_v4 gemmk_add(gemmk_v4 a, gemmk_v4 b) { return a + b; }
#endif

constexpr int64_t kMr = 4;    // rows of C per micro-tile
constexpr int64_t kNr = 8;    // columns of C per micro-tile (two vectors)
constexpr int64_t kMc = 64;   // rows of A per packed block (kMc x kKc floats: 64 KB, in L2)
constexpr int64_t kNc = 256;  // columns of B per packed block
constexpr int64_t kKc = 256;  // depth per block (a kKc x kNr panel of B: 8 KB, in L1)

// op(A)[m][k] and op(B)[k][n].
inline float gemmk_a(const float* A, int64_t lda, bool ta, int64_t m, int64_t k) {
  return ta ? A[k * lda + m] : A[m * lda + k];
}
inline float gemmk_b(const float* B, int64_t ldb, bool tb, int64_t k, int64_t n) {
  return tb ? B[n * ldb + k] : B[k * ldb + n];
}

// The 4 x 8 micro-tile: its running sums (rows ldt apart in the tile) += the A panel times the
// B panel, kc steps. ap: kc groups of kMr values of A (one per row); bp: kc groups of kNr of B.
inline void gemmk_micro(int64_t kc, const float* ap, const float* bp, float* tile, int64_t ldt) {
  gemmk_v4 c00 = gemmk_load(tile + 0 * ldt), c01 = gemmk_load(tile + 0 * ldt + 4);
  gemmk_v4 c10 = gemmk_load(tile + 1 * ldt), c11 = gemmk_load(tile + 1 * ldt + 4);
  gemmk_v4 c20 = gemmk_load(tile + 2 * ldt), c21 = gemmk_load(tile + 2 * ldt + 4);
  gemmk_v4 c30 = gemmk_load(tile + 3 * ldt), c31 = gemmk_load(tile + 3 * ldt + 4);
  for (int64_t k = 0; k < kc; ++k, ap += kMr, bp += kNr) {
    gemmk_v4 b0 = gemmk_load(bp), b1 = gemmk_load(bp + 4);
    gemmk_v4 a = gemmk_splat(ap[0]);
    c00 = gemmk_add(c00, gemmk_mul(a, b0));
    c01 = gemmk_add(c01, gemmk_mul(a, b1));
    a = gemmk_splat(ap[1]);
    c10 = gemmk_add(c10, gemmk_mul(a, b0));
    c11 = gemmk_add(c11, gemmk_mul(a, b1));
    a = gemmk_splat(ap[2]);
    c20 = gemmk_add(c20, gemmk_mul(a, b0));
    c21 = gemmk_add(c21, gemmk_mul(a, b1));
    a = gemmk_splat(ap[3]);
    c30 = gemmk_add(c30, gemmk_mul(a, b0));
    c31 = gemmk_add(c31, gemmk_mul(a, b1));
  }
  gemmk_store(tile + 0 * ldt, c00), gemmk_store(tile + 0 * ldt + 4, c01);
  gemmk_store(tile + 1 * ldt, c10), gemmk_store(tile + 1 * ldt + 4, c11);
  gemmk_store(tile + 2 * ldt, c20), gemmk_store(tile + 2 * ldt + 4, c21);
  gemmk_store(tile + 3 * ldt, c30), gemmk_store(tile + 3 * ldt + 4, c31);
}

}  // namespace

void gemm_kernel(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  // Rows and columns past M and N in the last panels are zeros; their sums are never written.
  const int64_t nc_max = std::min(kNc, (N + kNr - 1) / kNr * kNr);
  const int64_t mc_max = std::min(kMc, (M + kMr - 1) / kMr * kMr);
  const int64_t kc_max = std::min(kKc, std::max<int64_t>(K, 1));
  std::vector<float> bpack(static_cast<size_t>(kc_max * nc_max));
  std::vector<float> apack(static_cast<size_t>(mc_max * kc_max));
  std::vector<float> tile(static_cast<size_t>(mc_max * nc_max));
  for (int64_t n0 = 0; n0 < N; n0 += kNc) {
    const int64_t nc = std::min(kNc, N - n0), ncp = (nc + kNr - 1) / kNr * kNr;
    for (int64_t m0 = 0; m0 < M; m0 += kMc) {
      const int64_t mc = std::min(kMc, M - m0), mcp = (mc + kMr - 1) / kMr * kMr;
      std::fill(tile.begin(), tile.begin() + mcp * ncp, 0.f);  // acc = 0
      for (int64_t k0 = 0; k0 < K; k0 += kKc) {
        const int64_t kc = std::min(kKc, K - k0);
        // B[k0:k0+kc, n0:n0+nc] as ncp/kNr panels, each kc rows of kNr values.
        // (Packed again for every block of rows: 1/kMc of the multiply-adds.)
        for (int64_t j = 0; j < ncp; j += kNr) {
          float* dst = bpack.data() + j * kc;
          for (int64_t k = 0; k < kc; ++k)
            for (int64_t c = 0; c < kNr; ++c)
              dst[k * kNr + c] = j + c < nc ? gemmk_b(B, ldb, tb, k0 + k, n0 + j + c) : 0.f;
        }
        // A[m0:m0+mc, k0:k0+kc] as mcp/kMr panels, each kc columns of kMr values.
        for (int64_t i = 0; i < mcp; i += kMr) {
          float* dst = apack.data() + i * kc;
          for (int64_t k = 0; k < kc; ++k)
            for (int64_t r = 0; r < kMr; ++r)
              dst[k * kMr + r] = i + r < mc ? gemmk_a(A, lda, ta, m0 + i + r, k0 + k) : 0.f;
        }
        for (int64_t j = 0; j < ncp; j += kNr)
          for (int64_t i = 0; i < mcp; i += kMr)
            gemmk_micro(kc, apack.data() + i * kc, bpack.data() + j * kc, tile.data() + i * ncp + j, ncp);
      }
      for (int64_t i = 0; i < mc; ++i) {
        const float* t = tile.data() + i * ncp;
        float* c = C + (m0 + i) * ldc + n0;
        for (int64_t j = 0; j < nc; ++j) c[j] = alpha * t[j] + (beta == 0.f ? 0.f : beta * c[j]);
      }
    }
  }
}

void gemm_kernel(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                 const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  gemm_naive(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace onnxtrim::ops::nn
