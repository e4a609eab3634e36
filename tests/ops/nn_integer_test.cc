// The nn family's integer kernels (ConvInteger, QLinearConv, MatMulInteger, QLinearMatMul)
// compute with a float GEMM proven exact (nn::gemm_exact_int): their results must equal, bit for
// bit, a plain int64 reference that wraps to int32. Shapes cover tiling of output rows, groups,
// strides, pads, dilations, 1-D/2-D/3-D and pointwise convolutions, K long enough to be cut into
// chunks, sums beyond int32, per-channel / per-row / per-column zero points and batch
// broadcasting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::Dims;
using ops::make_tensor;
using test::run;

std::string dims_text(const Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}
std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

// Random 8-bit values; `extreme` draws only the two ends of the range (largest products).
template <typename T>
std::vector<T> random_values(int64_t n, std::mt19937& rng, bool extreme = false) {
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    int r = d(rng);
    x = static_cast<T>(extreme ? (r & 1 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min()) : r);
  }
  return v;
}

int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

struct ConvCase {
  Dims x, w;  // [N, C, in...], [M, C/group, k...]
  int64_t group;
  std::vector<int64_t> strides, pads, dilations;
};

// Direct convolution in int64 (zero points subtracted, padding reads x's zero point).
std::vector<int32_t> reference_conv(const ConvCase& c, const std::vector<int32_t>& x, const std::vector<int32_t>& w,
                                    Dims* out_dims) {
  size_t nsp = c.x.size() - 2;
  int64_t N = c.x[0], C = c.x[1], M = c.w[0], Cg = C / c.group, Mg = M / c.group;
  Dims out;
  for (size_t d = 0; d < nsp; ++d) {
    int64_t dk = (c.w[2 + d] - 1) * c.dilations[d] + 1;
    out.push_back((c.x[2 + d] + c.pads[d] + c.pads[d + nsp] - dk) / c.strides[d] + 1);
  }
  *out_dims = {N, M};
  out_dims->insert(out_dims->end(), out.begin(), out.end());
  int64_t out_size = numel(out), ks = numel(Dims(c.w.begin() + 2, c.w.end())),
          in_size = numel(Dims(c.x.begin() + 2, c.x.end()));
  std::vector<int32_t> y(static_cast<size_t>(N * M * out_size));
  std::vector<int64_t> oi(nsp), ki(nsp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      int64_t gi = m / Mg;
      for (int64_t o = 0; o < out_size; ++o) {
        for (int64_t r = o, d = static_cast<int64_t>(nsp) - 1; d >= 0; --d) {
          oi[static_cast<size_t>(d)] = r % out[static_cast<size_t>(d)];
          r /= out[static_cast<size_t>(d)];
        }
        int64_t acc = 0;
        for (int64_t cc = 0; cc < Cg; ++cc)
          for (int64_t k = 0; k < ks; ++k) {
            for (int64_t r = k, d = static_cast<int64_t>(nsp) - 1; d >= 0; --d) {
              ki[static_cast<size_t>(d)] = r % c.w[2 + static_cast<size_t>(d)];
              r /= c.w[2 + static_cast<size_t>(d)];
            }
            int64_t off = 0;
            bool inside = true;
            for (size_t d = 0; d < nsp; ++d) {
              int64_t p = oi[d] * c.strides[d] - c.pads[d] + ki[d] * c.dilations[d];
              if (p < 0 || p >= c.x[2 + d]) inside = false;
              off = off * c.x[2 + d] + p;
            }
            if (!inside) continue;
            int64_t xv = x[static_cast<size_t>((n * C + gi * Cg + cc) * in_size + off)];
            int64_t wv = w[static_cast<size_t>((m * Cg + cc) * ks + k)];
            acc += xv * wv;
          }
        y[static_cast<size_t>((n * M + m) * out_size + o)] = wrap32(acc);
      }
    }
  return y;
}

void check_conv_integer(const ConvCase& c, uint32_t seed, bool extreme = false) {
  SCOPED_TRACE("x [" + dims_text(c.x) + "] w [" + dims_text(c.w) + "] group " + std::to_string(c.group));
  std::mt19937 rng(seed);
  auto xv = random_values<uint8_t>(numel(c.x), rng, extreme);
  auto wv = random_values<int8_t>(numel(c.w), rng, extreme);
  int64_t M = c.w[0];
  uint8_t zx = extreme ? 255 : 131;
  std::vector<int8_t> zw(static_cast<size_t>(M));
  for (int64_t m = 0; m < M; ++m)
    zw[static_cast<size_t>(m)] = static_cast<int8_t>(extreme ? 127 : (m * 37) % 256 - 128);
  std::vector<int32_t> xs(xv.size()), ws(wv.size());
  for (size_t i = 0; i < xv.size(); ++i) xs[i] = int32_t{xv[i]} - zx;
  int64_t per_m = numel(c.w) / M;
  for (size_t i = 0; i < wv.size(); ++i) ws[i] = int32_t{wv[i]} - zw[i / static_cast<size_t>(per_m)];
  Dims yd;
  std::vector<int32_t> want = reference_conv(c, xs, ws, &yd);
  size_t nsp = c.x.size() - 2;
  std::string text = "<ir_version: 8, opset_import: [\"\" : 13]> g (uint8[" + dims_text(c.x) + "] x, int8[" +
                     dims_text(c.w) + "] w, uint8 zx, int8[" + std::to_string(M) + "] zw) => (int32[" + dims_text(yd) +
                     "] y) { y = ConvInteger <group = " + std::to_string(c.group) +
                     ", strides = " + ints_text(c.strides) + ", pads = " + ints_text(c.pads) +
                     ", dilations = " + ints_text(c.dilations) + "> (x, w, zx, zw) }";
  (void)nsp;
  auto r = run(text, {{"x", make_tensor<uint8_t>(c.x, xv)},
                      {"w", make_tensor<int8_t>(c.w, wv)},
                      {"zx", make_tensor<uint8_t>({}, {zx})},
                      {"zw", make_tensor<int8_t>({M}, zw)}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.dims(), yd);
  std::vector<int32_t> got = r.value()[0].tensor.to_vector<int32_t>();
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != want[i];
  EXPECT_EQ(bad, 0u);

  // QLinearConv requantizes the same sums: compare with the reference sums requantized.
  std::vector<int32_t> bias(static_cast<size_t>(M));
  for (int64_t m = 0; m < M; ++m) bias[static_cast<size_t>(m)] = static_cast<int32_t>(m * 1000 - 3000);
  std::vector<float> sw(static_cast<size_t>(M));
  for (int64_t m = 0; m < M; ++m) sw[static_cast<size_t>(m)] = 0.001f * static_cast<float>(m + 1);
  const float sx = 0.02f, sy = 0.5f;
  const uint8_t zy = 77;
  std::string qtext = "<ir_version: 8, opset_import: [\"\" : 13]> g (uint8[" + dims_text(c.x) +
                      "] x, float sx, uint8 zx, int8[" + dims_text(c.w) + "] w, float[" + std::to_string(M) +
                      "] sw, int8[" + std::to_string(M) + "] zw, float sy, uint8 zy, int32[" + std::to_string(M) +
                      "] b) => (uint8[" + dims_text(yd) + "] y) { y = QLinearConv <group = " + std::to_string(c.group) +
                      ", strides = " + ints_text(c.strides) + ", pads = " + ints_text(c.pads) +
                      ", dilations = " + ints_text(c.dilations) + "> (x, sx, zx, w, sw, zw, sy, zy, b) }";
  auto q = run(qtext, {{"x", make_tensor<uint8_t>(c.x, xv)},
                       {"sx", make_tensor<float>({}, {sx})},
                       {"zx", make_tensor<uint8_t>({}, {zx})},
                       {"w", make_tensor<int8_t>(c.w, wv)},
                       {"sw", make_tensor<float>({M}, sw)},
                       {"zw", make_tensor<int8_t>({M}, zw)},
                       {"sy", make_tensor<float>({}, {sy})},
                       {"zy", make_tensor<uint8_t>({}, {zy})},
                       {"b", make_tensor<int32_t>({M}, bias)}});
  ASSERT_TRUE(q.is_ok()) << q.status().message();
  std::vector<uint8_t> qgot = q.value()[0].tensor.to_vector<uint8_t>();
  int64_t out_size = numel(Dims(yd.begin() + 2, yd.end()));
  bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    auto m = static_cast<size_t>((static_cast<int64_t>(i) / out_size) % M);
    float f = sx * sw[m] / sy;
    double v = std::nearbyint(static_cast<double>(wrap32(int64_t{want[i]} + bias[m])) * static_cast<double>(f)) + zy;
    auto expect = static_cast<uint8_t>(std::min(255.0, std::max(0.0, v)));
    bad += qgot[i] != expect;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(IntegerKernels, ConvIntegerMatchesTheInt64Reference) {
  // 2-D, groups, strides, asymmetric pads, dilations.
  check_conv_integer({{2, 4, 9, 11}, {6, 2, 3, 3}, 2, {2, 1}, {1, 0, 2, 1}, {1, 2}}, 1);
  // Many output rows: im2col in several row tiles.
  check_conv_integer({{1, 16, 130, 130}, {4, 16, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 2);
  // Pointwise (1x1, stride 1, no pads): the input is multiplied directly.
  check_conv_integer({{2, 8, 7, 5}, {3, 8, 1, 1}, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 3);
  // Depthwise 1-D and a 3-D convolution (the generic im2col).
  check_conv_integer({{1, 6, 40}, {6, 1, 5}, 6, {3}, {2, 2}, {2}}, 4);
  check_conv_integer({{1, 3, 6, 5, 7}, {4, 3, 2, 3, 2}, 1, {1, 2, 1}, {1, 0, 1, 0, 1, 1}, {2, 1, 1}}, 5);
  // The largest products (|x - zx| = 255, |w - zw| = 255) over K = 720: three exact chunks.
  check_conv_integer({{1, 80, 6, 6}, {2, 80, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 6, true);
}

TEST(IntegerKernels, MatMulIntegerSumsBeyondInt32Wrap) {
  // 40,000 products of 255 * 255 = 2,601,000,000: past int32, wrapped as int32 arithmetic does.
  const int64_t K = 40000;
  auto r =
      run("<ir_version: 8, opset_import: [\"\" : 13]> g (uint8[1,40000] a, uint8[40000,2] b) => (int32[1,2] y) { y = "
          "MatMulInteger(a, b) }",
          {{"a", make_tensor<uint8_t>({1, K}, std::vector<uint8_t>(static_cast<size_t>(K), 255))},
           {"b", make_tensor<uint8_t>({K, 2}, std::vector<uint8_t>(static_cast<size_t>(2 * K), 255))}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.to_vector<int32_t>(), (std::vector<int32_t>{-1693967296, -1693967296}));
}

TEST(IntegerKernels, MatMulIntegerAndQLinearMatMulMatchTheInt64Reference) {
  // Batch [3, 1] x [2]: A broadcast over B's batch; per-row zero points of A, per-column of B.
  std::mt19937 rng(7);
  const int64_t M = 300, K = 517, N = 33;
  Dims ad{3, 1, M, K}, bd{2, K, N};
  auto av = random_values<int8_t>(numel(ad), rng);
  auto bv = random_values<uint8_t>(numel(bd), rng);
  std::vector<int8_t> za(static_cast<size_t>(M));
  std::vector<uint8_t> zb(static_cast<size_t>(N));
  for (int64_t i = 0; i < M; ++i) za[static_cast<size_t>(i)] = static_cast<int8_t>((i * 11) % 256 - 128);
  for (int64_t i = 0; i < N; ++i) zb[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 29) % 256);
  std::vector<int32_t> want(static_cast<size_t>(3 * 2 * M * N));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          int64_t acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += (int64_t{av[static_cast<size_t>((i * M + m) * K + k)]} - za[static_cast<size_t>(m)]) *
                   (int64_t{bv[static_cast<size_t>((j * K + k) * N + n)]} - zb[static_cast<size_t>(n)]);
          want[static_cast<size_t>(((i * 2 + j) * M + m) * N + n)] = wrap32(acc);
        }
  std::map<std::string, ir::Tensor> feeds{{"a", make_tensor<int8_t>(ad, av)},
                                          {"b", make_tensor<uint8_t>(bd, bv)},
                                          {"za", make_tensor<int8_t>({M}, za)},
                                          {"zb", make_tensor<uint8_t>({N}, zb)}};
  auto r =
      run("<ir_version: 8, opset_import: [\"\" : 13]> g (int8[3,1,300,517] a, uint8[2,517,33] b, int8[300] za, "
          "uint8[33] zb) => (int32[3,2,300,33] y) { y = MatMulInteger(a, b, za, zb) }",
          feeds);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.dims(), (Dims{3, 2, M, N}));
  EXPECT_TRUE(r.value()[0].tensor.to_vector<int32_t>() == want);

  feeds["sa"] = make_tensor<float>({}, {0.01f});
  std::vector<float> sb(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) sb[static_cast<size_t>(n)] = 0.002f * static_cast<float>(n + 1);
  feeds["sb"] = make_tensor<float>({N}, sb);
  feeds["sy"] = make_tensor<float>({}, {0.75f});
  feeds["zy"] = make_tensor<int8_t>({}, {-5});
  auto q =
      run("<ir_version: 8, opset_import: [\"\" : 13]> g (int8[3,1,300,517] a, float sa, int8[300] za, uint8[2,517,33] "
          "b, float[33] sb, uint8[33] zb, float sy, int8 zy) => (int8[3,2,300,33] y) { y = QLinearMatMul(a, sa, za, b, "
          "sb, zb, sy, zy) }",
          feeds);
  ASSERT_TRUE(q.is_ok()) << q.status().message();
  std::vector<int8_t> got = q.value()[0].tensor.to_vector<int8_t>();
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    auto n = static_cast<size_t>(static_cast<int64_t>(i) % N);
    float f = 0.01f * sb[n] / 0.75f;
    double v = std::nearbyint(static_cast<double>(want[i]) * static_cast<double>(f)) - 5;
    bad += got[i] != static_cast<int8_t>(std::min(127.0, std::max(-128.0, v)));
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace onnxtrim
