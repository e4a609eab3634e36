// The GEMM that runs where there is no BLAS (the WebAssembly build; natively, products past
// BLAS's int sizes): C = alpha * op(A) op(B) + beta * C, row-major, op = transpose or not.
//
// Every element of C is summed exactly as the naive loop sums it: acc = 0, then acc += a[k] *
// b[k] for k = 0, 1, ..., K - 1, each product and sum rounded to T (no fused multiply-add), then
// C = alpha * acc + (beta == 0 ? 0 : beta * C). So its results are the naive loop's bit for bit
// (gemm_naive, the tests' reference), only faster: single precision is cache-tiled (panels of A
// and B packed contiguous, K in blocks whose running sums wait in a tile) and register-blocked
// (4 rows x 8 columns of C in eight 4-lane vectors: wasm SIMD in the web build, the compiler's
// vector extensions natively). Double precision is the naive loop.
#pragma once

#include <cstdint>

namespace onnxtrim::ops::nn {

void gemm_kernel(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
void gemm_kernel(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                 const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

// The reference: the plain triple loop.
template <typename T>
void gemm_naive(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
                int64_t ldb, T beta, T* C, int64_t ldc) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      T acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (ta ? A[k * lda + m] : A[m * lda + k]) * (tb ? B[n * ldb + k] : B[k * ldb + n]);
      T& c = C[m * ldc + n];
      c = alpha * acc + (beta == T(0) ? T(0) : beta * c);
    }
}

}  // namespace onnxtrim::ops::nn
