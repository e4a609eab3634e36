// The portable GEMM (src/ops/nn/gemm_kernel.h), the one the WebAssembly build multiplies with:
// bit for bit the naive loop's results, for every transpose combination, edge sizes around its
// tiles and blocks, alpha/beta, and non-finite values. (tests/wasm/api_test.js runs the same
// comparison in the wasm module's SIMD build.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ops/nn/gemm_kernel.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops::nn {
namespace {

template <typename T>
void expect_same_as_naive(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, T beta, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-2, 2);
  const int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 2;  // padded strides
  std::vector<T> A((ta ? K : M) * lda), B((tb ? N : K) * ldb), C(M * ldc);
  for (auto& x : A) x = static_cast<T>(d(rng));
  for (auto& x : B) x = static_cast<T>(d(rng));
  for (auto& x : C) x = static_cast<T>(d(rng));
  std::vector<T> want = C, got = C;
  gemm_naive(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, want.data(), ldc);
  gemm_kernel(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, got.data(), ldc);
  ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(T)))
      << "ta=" << ta << " tb=" << tb << " M=" << M << " N=" << N << " K=" << K;
}

TEST(GemmKernel, SameBitsAsTheNaiveLoopAcrossTilesAndTransposes) {
  // Sizes below, at and past the 4 x 8 micro-tile, the 64-row and 256-column blocks and the
  // 256-deep blocks (K = 300: two depth blocks whose running sums continue).
  const int64_t sizes[][3] = {{1, 1, 1},     {3, 7, 5},     {4, 8, 16},   {5, 9, 17},
                              {65, 33, 300}, {70, 260, 31}, {2, 513, 257}};
  uint32_t seed = 1;
  for (const auto& s : sizes)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        expect_same_as_naive<float>(ta, tb, s[0], s[1], s[2], 1.f, 0.f, seed++);
        expect_same_as_naive<float>(ta, tb, s[0], s[1], s[2], 0.5f, 1.25f, seed++);
        expect_same_as_naive<double>(ta, tb, s[0], s[1], s[2], 2.0, -1.0, seed++);
      }
}

TEST(GemmKernel, KnownProductAndBetaZeroIgnoresNaNInC) {
  // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1]] = [[4,5],[10,11]]; beta 0: C's NaNs are not read.
  const float A[] = {1, 2, 3, 4, 5, 6}, B[] = {1, 0, 0, 1, 1, 1};
  float C[4];
  for (float& c : C) c = std::numeric_limits<float>::quiet_NaN();
  gemm_kernel(false, false, 2, 2, 3, 1.f, A, 3, B, 2, 0.f, C, 2);
  EXPECT_EQ(C[0], 4.f);
  EXPECT_EQ(C[1], 5.f);
  EXPECT_EQ(C[2], 10.f);
  EXPECT_EQ(C[3], 11.f);
}

TEST(GemmKernel, NonFiniteValuesPropagateAsInTheNaiveLoop) {
  const int64_t M = 6, N = 10, K = 9;
  std::vector<float> A(M * K, 1.f), B(K * N, 0.5f), want(M * N, 0.f), got(M * N, 0.f);
  A[2 * K + 3] = std::numeric_limits<float>::infinity();
  B[4 * N + 7] = std::numeric_limits<float>::quiet_NaN();
  A[5 * K + 0] = -0.f;
  gemm_naive(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, want.data(), N);
  gemm_kernel(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, got.data(), N);
  ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)));
  EXPECT_TRUE(std::isinf(got[2 * N + 0]));
  EXPECT_TRUE(std::isnan(got[0 * N + 7]));
}

}  // namespace
}  // namespace onnxtrim::ops::nn
