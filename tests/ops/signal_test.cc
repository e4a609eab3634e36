// Unit tests of the signal family (DFT, STFT, windows, MelWeightMatrix) and Det: small
// hand-checkable values, edge cases, and shape rules on symbolic dims.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;
using test::dims;
using test::expect_near;
using test::inferred;
using test::run;
using test::vals;

// Inferred shape of graph output i, printed like "[batch,floor(n / 2) + 1,2]".

// ------------------------------------------------------------------ DFT

TEST(SignalDft, RealForwardFourPoints) {
  auto r =
      run(R"(<ir_version: 8, opset_import: ["" : 17]> g (float[1,4,1] x) => (float[1,4,2] y) { y = DFT<axis = 1>(x) })",
          {{"x", make_tensor<float>({1, 4, 1}, {1, 2, 3, 4})}});
  EXPECT_EQ(dims(r), (ops::Dims{1, 4, 2}));
  expect_near(vals<float>(r), {10, 0, -2, 2, -2, 0, -2, -2});
}

TEST(SignalDft, OnesidedAndInverseRoundTripOddLengthPadded) {
  // Length 3 signal padded to 5 by dft_length (not a power of two: the direct sum), RFFT then
  // IRFFT with the same length gives the padded signal back.
  auto r =
      run(R"(<ir_version: 8, opset_import: ["" : 20]> g (float[1,3,1] x, int64 n) => (float[1,3,2] s, float[1,5,1] y) {
                   ax = Constant<value = int64 {1}>()
                   s = DFT<onesided = 1>(x, n, ax)
                   y = DFT<onesided = 1, inverse = 1>(s, n, ax) })",
          {{"x", make_tensor<float>({1, 3, 1}, {1, -2, 3})}, {"n", make_tensor<int64_t>({}, {5})}});
  EXPECT_EQ(dims(r, 0), (ops::Dims{1, 3, 2}));
  EXPECT_EQ(dims(r, 1), (ops::Dims{1, 5, 1}));
  expect_near(vals<float>(r, 1), {1, -2, 3, 0, 0});
  // Bin 0 is the sum of the samples.
  EXPECT_NEAR(vals<float>(r, 0)[0], 2.f, 1e-5f);
}

TEST(SignalDft, AxisOutOfRangeIsAnError) {
  auto r =
      run(R"(<ir_version: 8, opset_import: ["" : 17]> g (float[1,4,1] x) => (float[1,4,2] y) { y = DFT<axis = 2>(x) })",
          {{"x", make_tensor<float>({1, 4, 1}, {1, 2, 3, 4})}});
  EXPECT_FALSE(r.is_ok());
}

TEST(SignalDft, InferenceSymbolic) {
  EXPECT_EQ(
      inferred(
          R"(<ir_version: 8, opset_import: ["" : 17]> g (float[batch,n,1] x) => (float[?,?,?] y) { y = DFT<onesided = 1, axis = 1>(x) })"),
      "[batch,floor(n / 2) + 1,2]");
  EXPECT_EQ(
      inferred(
          R"(<ir_version: 8, opset_import: ["" : 20]> g (float[batch,n,2] x) => (float[?,?,?] y) { y = DFT<inverse = 1>(x) })"),
      "[batch,n,2]");
}

// ------------------------------------------------------------------ STFT

TEST(SignalStft, TwoFramesOfTwo) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (float[1,4,1] x, int64 step, int64 len) => (float[1,2,2,2] y) { y = STFT(x, step, , len) })",
      {{"x", make_tensor<float>({1, 4, 1}, {1, 2, 3, 4})},
       {"step", make_tensor<int64_t>({}, {2})},
       {"len", make_tensor<int64_t>({}, {2})}});
  EXPECT_EQ(dims(r), (ops::Dims{1, 2, 2, 2}));
  expect_near(vals<float>(r), {3, 0, -1, 0, 7, 0, -1, 0});
}

TEST(SignalStft, WindowAndFrameLengthMustAgree) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (float[1,4,1] x, int64 step, float[3] w, int64 len) => (float[1,2,2,2] y) { y = STFT(x, step, w, len) })",
      {{"x", make_tensor<float>({1, 4, 1}, {1, 2, 3, 4})},
       {"step", make_tensor<int64_t>({}, {2})},
       {"w", make_tensor<float>({3}, {1, 1, 1})},
       {"len", make_tensor<int64_t>({}, {2})}});
  EXPECT_FALSE(r.is_ok());
}

TEST(SignalStft, InferenceSymbolic) {
  EXPECT_EQ(
      inferred(
          R"(<ir_version: 8, opset_import: ["" : 17]> g (float[batch,16,1] x, int64 step, float[4] w) => (float[?,?,?,?] y) {
                          c = Constant<value = int64 {4}>()
                          y = STFT(x, c, w) })"),
      "[batch,4,3,2]");
}

// ------------------------------------------------------------------ windows

TEST(SignalWindow, HannPeriodicAndSymmetric) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17]> g (int64 n, int32 m) => (float[4] a, double[3] b) {
                   a = HannWindow(n)
                   b = HannWindow<periodic = 0, output_datatype = 11>(m) })",
               {{"n", make_tensor<int64_t>({}, {4})}, {"m", make_tensor<int32_t>({}, {3})}});
  expect_near(vals<float>(r), {0, 0.5f, 1, 0.5f});
  auto b = vals<double>(r, 1);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_NEAR(b[0], 0, 1e-12);
  EXPECT_NEAR(b[1], 1, 1e-12);
  EXPECT_NEAR(b[2], 0, 1e-12);
}

TEST(SignalWindow, HammingBlackmanAndDegenerateSizes) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (int64 n, int64 one, int64 zero) => (float[2] a, float[4] b, float[1] c, float[0] d) {
                   a = HammingWindow(n)
                   b = BlackmanWindow(n4)
                   n4 = Add(n, n)
                   c = BlackmanWindow<periodic = 0>(one)
                   d = HannWindow(zero) })",
      {{"n", make_tensor<int64_t>({}, {2})},
       {"one", make_tensor<int64_t>({}, {1})},
       {"zero", make_tensor<int64_t>({}, {0})}});
  expect_near(vals<float>(r, 0), {4.f / 46.f, 1.f});
  expect_near(vals<float>(r, 1), {0, 0.34f, 1, 0.34f});
  expect_near(vals<float>(r, 2), {1});
  EXPECT_EQ(dims(r, 3), (ops::Dims{0}));
}

TEST(SignalWindow, InferenceFromPropagatedSize) {
  EXPECT_EQ(inferred(R"(<ir_version: 8, opset_import: ["" : 17]> g (float[batch,seq] x) => (float[?] y) {
                          s = Shape<start = 1>(x)
                          n = Squeeze(s)
                          y = HammingWindow(n) })"),
            "[seq]");
}

// ------------------------------------------------------------------ MelWeightMatrix

TEST(SignalMel, SingleBand) {
  // Edges in bins: floor(5 * hz / 8) for hz = 0, ~1.33, ~2.67 -> 0, 0, 1: a one-bin triangle.
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (int64 m, int64 n, int64 sr, float lo, float hi) => (float[3,1] y) { y = MelWeightMatrix(m, n, sr, lo, hi) })",
      {{"m", make_tensor<int64_t>({}, {1})},
       {"n", make_tensor<int64_t>({}, {4})},
       {"sr", make_tensor<int64_t>({}, {8})},
       {"lo", make_tensor<float>({}, {0})},
       {"hi", make_tensor<float>({}, {4})}});
  EXPECT_EQ(dims(r), (ops::Dims{3, 1}));
  expect_near(vals<float>(r), {1, 0, 0});
}

TEST(SignalMel, InferenceShapeAndType) {
  EXPECT_EQ(inferred(R"(<ir_version: 8, opset_import: ["" : 17]> g (float lo, float hi, int64 sr) => (double[?,?] y) {
                          m = Constant<value = int64 {8}>()
                          n = Constant<value = int64 {16}>()
                          y = MelWeightMatrix<output_datatype = 11>(m, n, sr, lo, hi) })"),
            "[9,8]");
}

// ------------------------------------------------------------------ Det

TEST(MathDet, TwoByTwoAndBatched) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 11]> g (float[2,2] x) => (float y) { y = Det(x) })",
               {{"x", make_tensor<float>({2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(dims(r), ops::Dims{});
  expect_near(vals<float>(r), {-2});
  // A permutation (pivoting, sign -1), a singular matrix, and 2*I.
  auto b = run(R"(<ir_version: 8, opset_import: ["" : 22]> g (double[3,3,3] x) => (double[3] y) { y = Det(x) })",
               {{"x", make_tensor<double>({3, 3, 3}, {0, 1, 0, 1, 0, 0, 0, 0, 1,  //
                                                      1, 2, 3, 2, 4, 6, 0, 1, 1,  //
                                                      2, 0, 0, 0, 2, 0, 0, 0, 2})}});
  EXPECT_EQ(vals<double>(b), (std::vector<double>{-1, 0, 8}));
}

TEST(MathDet, NonSquareIsAnErrorAndInference) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 11]> g (float[2,3] x) => (float y) { y = Det(x) })",
               {{"x", make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(
      inferred(R"(<ir_version: 8, opset_import: ["" : 11]> g (float[batch,k,3,3] x) => (float[?,?] y) { y = Det(x) })"),
      "[batch,k]");
}

// ------------------------------------------------------------------ signal

TEST(SignalDft, OfAnImpulseAndItsInverse) {
  // The DFT of [1, 0, 0, 0] is all ones; the inverse brings it back.
  auto f = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (float[1,4,1] x) => (float[1,4,2] y) { y = DFT(x) })",
               {{"x", make_tensor<float>({1, 4, 1}, {1, 0, 0, 0})}});
  expect_near(vals<float>(f), {1, 0, 1, 0, 1, 0, 1, 0});
  auto i = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (float[1,4,2] x) => (float[1,4,2] y) { y = DFT<inverse = 1>(x) })",
               {{"x", make_tensor<float>({1, 4, 2}, {1, 0, 1, 0, 1, 0, 1, 0})}});
  expect_near(vals<float>(i), {1, 0, 0, 0, 0, 0, 0, 0});
  // onesided keeps n/2 + 1 bins.
  auto o = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (float[1,4,1] x) => (float[1,3,2] y) { y = DFT<onesided = 1>(x) })",
               {{"x", make_tensor<float>({1, 4, 1}, {1, 1, 1, 1})}});
  EXPECT_EQ(dims(o), (ops::Dims{1, 3, 2}));
  expect_near(vals<float>(o), {4, 0, 0, 0, 0, 0});
}

TEST(SignalWindow, WindowsAndDet) {
  auto h = run(R"(<ir_version: 10, opset_import: ["" : 17]>
g (int64 n) => (float[4] y) { y = HannWindow<periodic = 1>(n) })",
               {{"n", make_tensor<int64_t>({}, {4})}});
  expect_near(vals<float>(h), {0, 0.5f, 1, 0.5f});
  auto d = run(R"(<ir_version: 10, opset_import: ["" : 22]>
g (float[2,2,2] x) => (float[2] y) { y = Det(x) })",
               {{"x", make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 3})}});
  expect_near(vals<float>(d), {-2, 6});
}

}  // namespace
}  // namespace onnxtrim
