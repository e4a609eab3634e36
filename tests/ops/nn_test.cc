// Unit tests of the nn family kernels: what the ONNX backend tests do not cover (exact int64,
// empty tensors, broadcasting corners, opset differences, other dtypes, errors).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::Half;
using ops::make_tensor;
using test::dims;
using test::run;
using test::vals;

ir::Tensor bool_scalar(bool v) {
  ir::Tensor t(ir::DataType::kBool, {});
  t.mutable_bytes()[0] = v ? 1 : 0;
  return t;
}
std::vector<Half> halves(std::initializer_list<float> v) {
  std::vector<Half> out;
  for (float f : v) out.emplace_back(f);
  return out;
}
std::vector<float> floats_of(const std::vector<Half>& v) {
  std::vector<float> out;
  for (Half h : v) out.push_back(static_cast<float>(h));
  return out;
}

// ------------------------------------------------------------------ MatMul

TEST(NnMatMul, Int64BeyondDoublePrecisionIsExact) {
  const int64_t big = (int64_t{1} << 53) + 1;
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (int64[1,2] a, int64[2,1] b) => (int64[1,1] y) { y = MatMul(a, b) })",
      {{"a", make_tensor<int64_t>({1, 2}, {big, 1})}, {"b", make_tensor<int64_t>({2, 1}, {3, 1})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{3 * big + 1}));
}

TEST(NnMatMul, OneDimensionalOperands) {
  auto r =
      run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[3] a, float[3] b) => (float y) { y = MatMul(a, b) })",
          {{"a", make_tensor<float>({3}, {1, 2, 3})}, {"b", make_tensor<float>({3}, {4, 5, 6})}});
  EXPECT_EQ(dims(r), ops::Dims{});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{32}));
  auto r2 = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2] a, float[3,2,2] b) => (float[3,2] y) { y = MatMul(a, b) })",
      {{"a", make_tensor<float>({2}, {1, 2})},
       {"b", make_tensor<float>({3, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2, 1, 1, 1, 1})}});
  EXPECT_EQ(dims(r2), (ops::Dims{3, 2}));
  EXPECT_EQ(vals<float>(r2), (std::vector<float>{1, 2, 2, 4, 3, 3}));
  auto r3 = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (int32[2,2,3] a, int32[3] b) => (int32[2,2] y) { y = MatMul(a, b) })",
      {{"a", make_tensor<int32_t>({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
       {"b", make_tensor<int32_t>({3}, {1, 0, -1})}});
  EXPECT_EQ(dims(r3), (ops::Dims{2, 2}));
  EXPECT_EQ(vals<int32_t>(r3), (std::vector<int32_t>{-2, -2, -2, -2}));
}

TEST(NnMatMul, BatchBroadcasting) {
  // a: [2,1,1,2], b: [3,2,1] -> [2,3,1,1]
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (double[2,1,1,2] a, double[3,2,1] b) => (double[2,3,1,1] y) { y = MatMul(a, b) })",
      {{"a", make_tensor<double>({2, 1, 1, 2}, {1, 2, 3, 4})},
       {"b", make_tensor<double>({3, 2, 1}, {1, 1, 1, 0, 0, 1})}});
  EXPECT_EQ(dims(r), (ops::Dims{2, 3, 1, 1}));
  EXPECT_EQ(vals<double>(r), (std::vector<double>{3, 1, 2, 7, 3, 4}));
}

TEST(NnMatMul, EmptyInnerDimensionGivesZeros) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,0] a, float[0,3] b) => (float[2,3] y) { y = MatMul(a, b) })",
      {{"a", ir::Tensor(ir::DataType::kFloat, {2, 0})}, {"b", ir::Tensor(ir::DataType::kFloat, {0, 3})}});
  EXPECT_EQ(dims(r), (ops::Dims{2, 3}));
  EXPECT_EQ(vals<float>(r), (std::vector<float>(6, 0.f)));
  auto r2 = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[0,2] a, float[2,3] b) => (float[0,3] y) { y = MatMul(a, b) })",
      {{"a", ir::Tensor(ir::DataType::kFloat, {0, 2})}, {"b", ir::Tensor(ir::DataType::kFloat, {2, 3})}});
  EXPECT_EQ(dims(r2), (ops::Dims{0, 3}));
}

TEST(NnMatMul, Float16ComputesInFloat) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float16[1,2] a, float16[2,1] b) => (float16[1,1] y) { y = MatMul(a, b) })",
      {{"a", make_tensor<Half>({1, 2}, halves({1.5f, 2.f}))}, {"b", make_tensor<Half>({2, 1}, halves({2.f, 0.25f}))}});
  EXPECT_EQ(floats_of(vals<Half>(r)), (std::vector<float>{3.5f}));
}

TEST(NnMatMul, MismatchedInnerDimensionIsAnError) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,3] a, float[2,3] b) => (float[2,3] y) { y = MatMul(a, b) })",
      {{"a", ir::Tensor(ir::DataType::kFloat, {2, 3})}, {"b", ir::Tensor(ir::DataType::kFloat, {2, 3})}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
}

// ------------------------------------------------------------------ Gemm

TEST(NnGemm, TransposesAlphaBetaAndRowBroadcast) {
  // A^T: A stored [2,1] = [[1],[2]] -> op(A) = [[1,2]]; B^T: B stored [2,2] = [[1,2],[3,4]] -> [[1,3],[2,4]]
  auto r =
      run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,1] a, float[2,2] b, float[2] c) => (float[1,2] y) {
                   y = Gemm<transA = 1, transB = 1, alpha = 2.0, beta = 0.5>(a, b, c) })",
          {{"a", make_tensor<float>({2, 1}, {1, 2})},
           {"b", make_tensor<float>({2, 2}, {1, 2, 3, 4})},
           {"c", make_tensor<float>({2}, {10, 20})}});
  // op(A) op(B) = [1*1+2*2, 1*3+2*4] = [5, 11]; *2 = [10, 22]; + 0.5*[10,20] = [15, 32]
  EXPECT_EQ(vals<float>(r), (std::vector<float>{15, 32}));
}

TEST(NnGemm, Int64ExactAndColumnBroadcast) {
  const int64_t big = (int64_t{1} << 60) + 7;
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (int64[2,1] a, int64[1,1] b, int64[2,1] c) => (int64[2,1] y) { y = Gemm(a, b, c) })",
      {{"a", make_tensor<int64_t>({2, 1}, {big, 1})},
       {"b", make_tensor<int64_t>({1, 1}, {1})},
       {"c", make_tensor<int64_t>({2, 1}, {1, -1})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{big + 1, 0}));
}

TEST(NnGemm, OptionalCFromOpset11Only) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 11]> g (float[1,1] a, float[1,1] b) => (float[1,1] y) { y = Gemm(a, b) })",
      {{"a", make_tensor<float>({1, 1}, {3})}, {"b", make_tensor<float>({1, 1}, {4})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{12}));
  auto r9 = run(
      R"(<ir_version: 4, opset_import: ["" : 9]> g (float[1,1] a, float[1,1] b) => (float[1,1] y) { y = Gemm(a, b) })",
      {{"a", make_tensor<float>({1, 1}, {3})}, {"b", make_tensor<float>({1, 1}, {4})}});
  EXPECT_FALSE(r9.is_ok());
}

TEST(NnGemm, CThatDoesNotBroadcastIsAnError) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,2] a, float[2,2] b, float[3] c) => (float[2,2] y) { y = Gemm(a, b, c) })",
      {{"a", ir::Tensor(ir::DataType::kFloat, {2, 2})},
       {"b", ir::Tensor(ir::DataType::kFloat, {2, 2})},
       {"c", ir::Tensor(ir::DataType::kFloat, {3})}});
  EXPECT_FALSE(r.is_ok());
}

// ------------------------------------------------------------------ Conv / ConvTranspose

TEST(NnConv, SameUpperVersusSameLower1D) {
  // x = [1,2,3,4], kernel [1,1] (length 2): total pad 1; SAME_UPPER pads the end, SAME_LOWER the start.
  const char* upper =
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,1,4] x, float[1,1,2] w) => (float[1,1,4] y) { y = Conv<auto_pad = "SAME_UPPER">(x, w) })";
  const char* lower =
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,1,4] x, float[1,1,2] w) => (float[1,1,4] y) { y = Conv<auto_pad = "SAME_LOWER">(x, w) })";
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({1, 1, 4}, {1, 2, 3, 4})},
                                          {"w", make_tensor<float>({1, 1, 2}, {1, 10})}};
  EXPECT_EQ(vals<float>(run(upper, feeds)), (std::vector<float>{21, 32, 43, 4}));
  EXPECT_EQ(vals<float>(run(lower, feeds)), (std::vector<float>{10, 21, 32, 43}));
}

TEST(NnConv, GroupsStridesDilationsAndBias) {
  // 2 groups, each one channel; stride 2, dilation 2 over length 5.
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (double[1,2,5] x, double[2,1,2] w, double[2] b) => (double[1,2,2] y) {
                   y = Conv<group = 2, strides = [2], dilations = [2]>(x, w, b) })",
      {{"x", make_tensor<double>({1, 2, 5}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50})},
       {"w", make_tensor<double>({2, 1, 2}, {1, 1, 1, -1})},
       {"b", make_tensor<double>({2}, {0.5, 0})}});
  // group 0: positions (0,2),(2,4): 1+3, 3+5 -> 4.5, 8.5; group 1: 10-30, 30-50 -> -20, -20
  EXPECT_EQ(vals<double>(r), (std::vector<double>{4.5, 8.5, -20, -20}));
}

TEST(NnConv, EmptyBatchAndFloat16) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[0,1,3,3] x, float[2,1,2,2] w) => (float[0,2,2,2] y) { y = Conv(x, w) })",
      {{"x", ir::Tensor(ir::DataType::kFloat, {0, 1, 3, 3})}, {"w", ir::Tensor(ir::DataType::kFloat, {2, 1, 2, 2})}});
  EXPECT_EQ(dims(r), (ops::Dims{0, 2, 2, 2}));
  auto h = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float16[1,1,2,2] x, float16[1,1,2,2] w) => (float16[1,1,1,1] y) { y = Conv(x, w) })",
      {{"x", make_tensor<Half>({1, 1, 2, 2}, halves({1, 2, 3, 4}))},
       {"w", make_tensor<Half>({1, 1, 2, 2}, halves({0.5f, 0.5f, 0.5f, 0.5f}))}});
  EXPECT_EQ(floats_of(vals<Half>(h)), (std::vector<float>{5}));
}

TEST(NnConv, ChannelMismatchIsAnError) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,3,3] x, float[1,2,2] w) => (float[1,1,2] y) { y = Conv(x, w) })",
      {{"x", ir::Tensor(ir::DataType::kFloat, {1, 3, 3})}, {"w", ir::Tensor(ir::DataType::kFloat, {1, 2, 2})}});
  EXPECT_FALSE(r.is_ok());
}

TEST(NnConvTranspose, OutputPaddingAndOutputShape) {
  // x = [1,2], w = [1,1], stride 2: full output [1,1,2,2] (length 4); output_padding 1 adds one zero.
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,1,2] x, float[1,1,2] w) => (float[1,1,5] y) {
                   y = ConvTranspose<strides = [2], output_padding = [1]>(x, w) })",
               {{"x", make_tensor<float>({1, 1, 2}, {1, 2})}, {"w", make_tensor<float>({1, 1, 2}, {1, 1})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{1, 1, 2, 2, 0}));
  // output_shape 3: total padding 1, NOTSET puts the odd unit at the start.
  auto r2 = run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,1,2] x, float[1,1,2] w) => (float[1,1,3] y) {
                    y = ConvTranspose<strides = [2], output_shape = [3]>(x, w) })",
                {{"x", make_tensor<float>({1, 1, 2}, {1, 2})}, {"w", make_tensor<float>({1, 1, 2}, {1, 10})}});
  // full: [1,10,2,20]; drop 1 at the start -> [10,2,20]
  EXPECT_EQ(vals<float>(r2), (std::vector<float>{10, 2, 20}));
}

// ------------------------------------------------------------------ pools

TEST(NnMaxPool, IndicesRowAndColumnMajor) {
  const char* t0 =
      R"(<ir_version: 8, opset_import: ["" : 12]> g (float[1,1,2,3] x) => (float[1,1,1,1] y, int64[1,1,1,1] i) {
                      y, i = MaxPool<kernel_shape = [2, 3]>(x) })";
  const char* t1 =
      R"(<ir_version: 8, opset_import: ["" : 12]> g (float[1,1,2,3] x) => (float[1,1,1,1] y, int64[1,1,1,1] i) {
                      y, i = MaxPool<kernel_shape = [2, 3], storage_order = 1>(x) })";
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({1, 1, 2, 3}, {0, 0, 0, 0, 9, 0})}};
  auto r0 = run(t0, feeds);
  EXPECT_EQ(vals<float>(r0), (std::vector<float>{9}));
  EXPECT_EQ(vals<int64_t>(r0, 1), (std::vector<int64_t>{4}));              // (1,1) row-major: 1*3+1
  EXPECT_EQ(vals<int64_t>(run(t1, feeds), 1), (std::vector<int64_t>{3}));  // column-major: 1 + 1*2
}

TEST(NnMaxPool, Int8AndUint8) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 12]> g (int8[1,1,4] x) => (int8[1,1,2] y) { y = MaxPool<kernel_shape = [2], strides = [2]>(x) })",
      {{"x", make_tensor<int8_t>({1, 1, 4}, {-128, -5, 127, 3})}});
  EXPECT_EQ(vals<int8_t>(r), (std::vector<int8_t>{-5, 127}));
  auto u = run(
      R"(<ir_version: 8, opset_import: ["" : 12]> g (uint8[1,1,3] x) => (uint8[1,1,2] y) { y = MaxPool<kernel_shape = [2], ceil_mode = 1, strides = [2]>(x) })",
      {{"x", make_tensor<uint8_t>({1, 1, 3}, {1, 200, 7})}});
  EXPECT_EQ(vals<uint8_t>(u), (std::vector<uint8_t>{200, 7}));
}

TEST(NnAveragePool, CountIncludePad) {
  const char* ex =
      R"(<ir_version: 8, opset_import: ["" : 19]> g (float[1,1,2] x) => (float[1,1,2] y) { y = AveragePool<kernel_shape = [2], pads = [1, 0]>(x) })";
  const char* in =
      R"(<ir_version: 8, opset_import: ["" : 19]> g (float[1,1,2] x) => (float[1,1,2] y) { y = AveragePool<kernel_shape = [2], pads = [1, 0], count_include_pad = 1>(x) })";
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({1, 1, 2}, {2, 4})}};
  EXPECT_EQ(vals<float>(run(ex, feeds)), (std::vector<float>{2, 3}));
  EXPECT_EQ(vals<float>(run(in, feeds)), (std::vector<float>{1, 3}));
}

TEST(NnGlobalPool, LpNormAndMax) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,2,2] x) => (float[1,2,1] y) { y = GlobalLpPool<p = 1>(x) })",
      {{"x", make_tensor<float>({1, 2, 2}, {-1, 2, 3, -4})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{3, 7}));
  auto m = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (double[1,2,2] x) => (double[1,2,1] y) { y = GlobalMaxPool(x) })",
      {{"x", make_tensor<double>({1, 2, 2}, {-1, -2, 3, -4})}});
  EXPECT_EQ(vals<double>(m), (std::vector<double>{-1, 3}));
}

TEST(NnMaxUnpool, DefaultShape) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 11]> g (float[1,1,2] x, int64[1,1,2] i) => (float[1,1,4] y) { y = MaxUnpool<kernel_shape = [2], strides = [2]>(x, i) })",
      {{"x", make_tensor<float>({1, 1, 2}, {5, 6})}, {"i", make_tensor<int64_t>({1, 1, 2}, {1, 2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{0, 5, 6, 0}));
  auto bad = run(
      R"(<ir_version: 8, opset_import: ["" : 11]> g (float[1,1,2] x, int64[1,1,2] i) => (float[1,1,4] y) { y = MaxUnpool<kernel_shape = [2], strides = [2]>(x, i) })",
      {{"x", make_tensor<float>({1, 1, 2}, {5, 6})}, {"i", make_tensor<int64_t>({1, 1, 2}, {1, 9})}});
  EXPECT_FALSE(bad.is_ok());
}

// ------------------------------------------------------------------ softmax family

TEST(NnSoftmax, AxisSemanticsChangedAtOpset13) {
  // x [2,2], axis 0. Opset 11: coerced to [1,4] -> softmax over all four; opset 13: per column.
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({2, 2}, {0, 0, 0, 0})}};
  auto r11 =
      run(R"(<ir_version: 8, opset_import: ["" : 11]> g (float[2,2] x) => (float[2,2] y) { y = Softmax<axis = 0>(x) })",
          feeds);
  auto r13 =
      run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,2] x) => (float[2,2] y) { y = Softmax<axis = 0>(x) })",
          feeds);
  EXPECT_EQ(vals<float>(r11), (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
  EXPECT_EQ(vals<float>(r13), (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(NnHardmax, OpsetDifferenceAndFirstMaximum) {
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({2, 2}, {1, 3, 3, 2})}};
  auto r11 =
      run(R"(<ir_version: 8, opset_import: ["" : 11]> g (float[2,2] x) => (float[2,2] y) { y = Hardmax<axis = 0>(x) })",
          feeds);
  auto r13 =
      run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2,2] x) => (float[2,2] y) { y = Hardmax<axis = 0>(x) })",
          feeds);
  EXPECT_EQ(vals<float>(r11), (std::vector<float>{0, 1, 0, 0}));  // first of the two 3s in flat order
  EXPECT_EQ(vals<float>(r13), (std::vector<float>{0, 1, 1, 0}));
}

TEST(NnLogSoftmax, NegativeAxisDouble) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (double[1,2] x) => (double[1,2] y) { y = LogSoftmax<axis = -1>(x) })",
      {{"x", make_tensor<double>({1, 2}, {5, 5})}});
  EXPECT_EQ(vals<double>(r), (std::vector<double>{-std::log(2.0), -std::log(2.0)}));
  auto bad = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (double[1,2] x) => (double[1,2] y) { y = LogSoftmax<axis = 2>(x) })",
      {{"x", make_tensor<double>({1, 2}, {5, 5})}});
  EXPECT_FALSE(bad.is_ok());
}

// ------------------------------------------------------------------ Dropout

TEST(NnDropout, InferenceMaskTypesPerOpset) {
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({2}, {1, -2})}};
  auto r7 =
      run(R"(<ir_version: 4, opset_import: ["" : 7]> g (float[2] x) => (float[2] y, float[2] m) { y, m = Dropout(x) })",
          feeds);
  EXPECT_EQ(vals<float>(r7), (std::vector<float>{1, -2}));
  EXPECT_EQ(vals<float>(r7, 1), (std::vector<float>{1, 1}));
  auto r13 =
      run(R"(<ir_version: 8, opset_import: ["" : 13]> g (float[2] x) => (float[2] y, bool[2] m) { y, m = Dropout(x) })",
          feeds);
  EXPECT_EQ(vals<uint8_t>(r13, 1), (std::vector<uint8_t>{1, 1}));
}

TEST(NnDropout, TrainingModeDropsAndScalesUnlessRatioZero) {
  const char* t =
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1000] x, float r, bool t) => (float[1000] y, bool[1000] m) { y, m = Dropout<seed = 3.0>(x, r, t) })";
  auto r = run(t, {{"x", make_tensor<float>({1000}, std::vector<float>(1000, 1.0f))},
                   {"r", make_tensor<float>({}, {0.5f})},
                   {"t", bool_scalar(true)}});
  // Each element is 0 (dropped, mask false) or 1 / (1 - 0.5) = 2 (kept, mask true).
  auto y = vals<float>(r, 0);
  auto m = vals<uint8_t>(r, 1);
  ASSERT_EQ(y.size(), 1000u);
  int kept = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_TRUE((y[i] == 2.0f && m[i] == 1) || (y[i] == 0.0f && m[i] == 0)) << i;
    kept += m[i];
  }
  EXPECT_GT(kept, 400);
  EXPECT_LT(kept, 600);
  auto z =
      run(t, {{"x", make_tensor<float>({2}, {1, 2})}, {"r", make_tensor<float>({}, {0.f})}, {"t", bool_scalar(true)}});
  EXPECT_EQ(vals<float>(z), (std::vector<float>{1, 2}));
}

// ------------------------------------------------------------------ Einsum

TEST(NnEinsum, ImplicitOutputDiagonalAndInt64) {
  const int64_t big = (int64_t{1} << 55) + 3;
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 12]> g (int64[2,2] a, int64[2] b) => (int64[2] y) { y = Einsum<equation = "ij,j">(a, b) })",
      {{"a", make_tensor<int64_t>({2, 2}, {big, 0, 1, 1})}, {"b", make_tensor<int64_t>({2}, {1, 2})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{big, 3}));
  auto d = run(
      R"(<ir_version: 8, opset_import: ["" : 12]> g (float[3,3] a) => (float[3] y) { y = Einsum<equation = "ii->i">(a) })",
      {{"a", make_tensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  EXPECT_EQ(vals<float>(d), (std::vector<float>{1, 5, 9}));
  // Implicit output orders labels alphabetically: "ba" -> "ab", a transpose.
  auto t = run(
      R"(<ir_version: 8, opset_import: ["" : 12]> g (float[2,3] a) => (float[3,2] y) { y = Einsum<equation = "ba">(a) })",
      {{"a", make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(dims(t), (ops::Dims{3, 2}));
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(NnEinsum, EllipsisBroadcast) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 12]> g (float[2,1,2] a, float[3,2] b) => (float[2,3] y) { y = Einsum<equation = "...j,...j->...">(a, b) })",
      {{"a", make_tensor<float>({2, 1, 2}, {1, 2, 3, 4})}, {"b", make_tensor<float>({3, 2}, {1, 0, 0, 1, 1, 1})}});
  EXPECT_EQ(dims(r), (ops::Dims{2, 3}));
  EXPECT_EQ(vals<float>(r), (std::vector<float>{1, 2, 3, 3, 4, 7}));
}

// ------------------------------------------------------------------ quantized

TEST(NnQuantized, MatMulIntegerPerRowZeroPoint) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (uint8[2,2] a, uint8[2,1] b, uint8[2] za, uint8 zb) => (int32[2,1] y) { y = MatMulInteger(a, b, za, zb) })",
      {{"a", make_tensor<uint8_t>({2, 2}, {10, 11, 255, 0})},
       {"b", make_tensor<uint8_t>({2, 1}, {3, 4})},
       {"za", make_tensor<uint8_t>({2}, {10, 0})},
       {"zb", make_tensor<uint8_t>({}, {2})}});
  // row 0: (0,1).(1,2) = 2; row 1: (255,0).(1,2) = 255
  EXPECT_EQ(vals<int32_t>(r), (std::vector<int32_t>{2, 255}));
}

TEST(NnQuantized, QLinearMatMulRoundsHalfToEvenAndSaturates) {
  const char* t =
      R"(<ir_version: 8, opset_import: ["" : 13]> g (uint8[1,1] a, float as, uint8 az, uint8[1,3] b, float bs, uint8 bz, float ys, uint8 yz) => (uint8[1,3] y) {
                     y = QLinearMatMul(a, as, az, b, bs, bz, ys, yz) })";
  auto r = run(t, {{"a", make_tensor<uint8_t>({1, 1}, {1})},
                   {"as", make_tensor<float>({}, {0.5f})},
                   {"az", make_tensor<uint8_t>({}, {0})},
                   {"b", make_tensor<uint8_t>({1, 3}, {5, 3, 255})},
                   {"bs", make_tensor<float>({}, {1.f})},
                   {"bz", make_tensor<uint8_t>({}, {0})},
                   {"ys", make_tensor<float>({}, {1.f})},
                   {"yz", make_tensor<uint8_t>({}, {100})}});
  // 2.5 -> 2, 1.5 -> 2, 127.5 -> 128 (+100 saturates at 255)
  EXPECT_EQ(vals<uint8_t>(r), (std::vector<uint8_t>{102, 102, 228}));
}

TEST(NnQuantized, ConvIntegerPadsWithZeroPoint) {
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (uint8[1,1,2] x, uint8[1,1,2] w, uint8 zx) => (int32[1,1,3] y) { y = ConvInteger<pads = [1, 1]>(x, w, zx) })",
      {{"x", make_tensor<uint8_t>({1, 1, 2}, {5, 7})},
       {"w", make_tensor<uint8_t>({1, 1, 2}, {1, 2})},
       {"zx", make_tensor<uint8_t>({}, {5})}});
  // x - zx = [0, 2], padded [0,0,2,0] -> [0*1+0*2, 0*1+2*2, 2*1+0*2] = [0, 4, 2]
  EXPECT_EQ(vals<int32_t>(r), (std::vector<int32_t>{0, 4, 2}));
}

}  // namespace
}  // namespace onnxtrim

namespace onnxtrim {
namespace {

TEST(NnConv, EqualFiltersGiveBitIdenticalChannels) {
  // 37 output channels with identical filters over large, varied values: float convolutions
  // accumulate in double, so every channel is the same correctly rounded sum (the light models'
  // uniform softmax depends on it).
  const int64_t C = 64, M = 37, H = 5;
  std::vector<float> x(static_cast<size_t>(C * H * H));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 7919) % 1000) * 1.0e6f + 0.1f * static_cast<float>(i);
  std::vector<float> w(static_cast<size_t>(M * C * 3 * 3), 0.5f);
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 13]> g (float[1,64,5,5] x, float[37,64,3,3] w) => (float[1,37,3,3] y) { y = Conv(x, w) })",
      {{"x", make_tensor<float>({1, C, H, H}, x)}, {"w", make_tensor<float>({M, C, 3, 3}, w)}});
  std::vector<float> y = vals<float>(r);
  ASSERT_EQ(y.size(), static_cast<size_t>(M * 9));
  for (int64_t m = 1; m < M; ++m)
    for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(y[static_cast<size_t>(m * 9 + i)], y[static_cast<size_t>(i)]);
}

}  // namespace
}  // namespace onnxtrim

namespace onnxtrim {
namespace {

TEST(NnDropout, IsTestBeforeOpset7) {
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({2}, {1, -2})}};
  auto inf =
      run(R"(<ir_version: 3, opset_import: ["" : 6]> g (float[2] x) => (float[2] y) { y = Dropout<is_test = 1>(x) })",
          feeds);
  EXPECT_EQ(vals<float>(inf), (std::vector<float>{1, -2}));
  // is_test = 0 (the default) is training mode: with ratio 0.5 each element is 0 or doubled.
  auto train =
      run(R"(<ir_version: 3, opset_import: ["" : 6]> g (float[2] x) => (float[2] y) { y = Dropout(x) })", feeds);
  auto v = vals<float>(train);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(v[0] == 0.0f || v[0] == 2.0f);
  EXPECT_TRUE(v[1] == 0.0f || v[1] == -4.0f);
}

// ------------------------------------------------------------------ Attention

TEST(Attention, CausalMaskAndFullyMaskedRow) {
  // Q.K = 0 everywhere: allowed keys get equal weights.
  std::map<std::string, ir::Tensor> feeds{{"q", make_tensor<float>({1, 1, 2, 1}, {1, 1})},
                                          {"k", make_tensor<float>({1, 1, 2, 1}, {0, 0})},
                                          {"v", make_tensor<float>({1, 1, 2, 1}, {2, 4})}};
  auto plain = run(R"(<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,2,1] q, float[1,1,2,1] k, float[1,1,2,1] v) => (float[1,1,2,1] y) { y = Attention(q, k, v) })",
                   feeds);
  EXPECT_EQ(vals<float>(plain), (std::vector<float>{3, 3}));
  auto causal = run(R"(<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,2,1] q, float[1,1,2,1] k, float[1,1,2,1] v) => (float[1,1,2,1] y) { y = Attention<is_causal = 1>(q, k, v) })",
                    feeds);
  EXPECT_EQ(vals<float>(causal), (std::vector<float>{2, 3}));
  // A boolean mask that disallows every key of row 0 gives a zero row, not NaN.
  ir::Tensor mask(ir::DataType::kBool, {2, 2});
  mask.mutable_bytes()[2] = 1;  // [[0, 0], [1, 0]]
  feeds["m"] = mask;
  auto masked = run(R"(<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,2,1] q, float[1,1,2,1] k, float[1,1,2,1] v, bool[2,2] m) => (float[1,1,2,1] y) { y = Attention(q, k, v, m) })",
                    feeds);
  EXPECT_EQ(vals<float>(masked), (std::vector<float>{0, 2}));
}

TEST(Attention, GroupedQueryHeads3D) {
  // Two query heads share one key/value head; 3-D inputs [B, S, H*D].
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,2] q, float[1,2,1] k, float[1,2,1] v) => (float[1,1,2] y) {
  y = Attention<q_num_heads = 2, kv_num_heads = 1, scale = 1.0>(q, k, v)
})",
               {{"q", make_tensor<float>({1, 1, 2}, {0, 100})},
                {"k", make_tensor<float>({1, 2, 1}, {0, 1})},
                {"v", make_tensor<float>({1, 2, 1}, {5, 7})}});
  // Head 0 scores [0, 0]: mean 6; head 1 scores [0, 100]: all weight on key 1.
  auto y = vals<float>(r);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_FLOAT_EQ(y[0], 6.0f);
  EXPECT_FLOAT_EQ(y[1], 7.0f);
}

// ------------------------------------------------------------------ attention variants

TEST(NnOps, RotaryEmbeddingRotatesPairs) {
  // One token at position 1, angle with cos = 0, sin = 1: (x1, x2) -> (-x2, x1).
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,1,2] x, float[2,1] c, float[2,1] s, int64[1,1] p) => (float[1,1,1,2] y) { y = RotaryEmbedding(x, c, s, p) })",
               {{"x", make_tensor<float>({1, 1, 1, 2}, {3, 5})},
                {"c", make_tensor<float>({2, 1}, {1, 0})},
                {"s", make_tensor<float>({2, 1}, {0, 1})},
                {"p", make_tensor<int64_t>({1, 1}, {1})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{-5, 3}));
  auto bad = run(R"(<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,1,2] x, float[2,1] c, float[2,1] s, int64[1,1] p) => (float[1,1,1,2] y) { y = RotaryEmbedding(x, c, s, p) })",
                 {{"x", make_tensor<float>({1, 1, 1, 2}, {3, 5})},
                  {"c", make_tensor<float>({2, 1}, {1, 0})},
                  {"s", make_tensor<float>({2, 1}, {0, 1})},
                  {"p", make_tensor<int64_t>({1, 1}, {7})}});
  EXPECT_FALSE(bad.is_ok());  // position past the cache
}

TEST(NnOps, SwiGLUAndCausalConv) {
  auto s = run(R"(<ir_version: 10, opset_import: ["" : 28]>
g (float[2] a, float[2] b) => (float[2] y) { y = SwiGLU(a, b) })",
               {{"a", make_tensor<float>({2}, {0, 0})}, {"b", make_tensor<float>({2}, {5, 7})}});
  EXPECT_EQ(vals<float>(s), (std::vector<float>{0, 0}));  // swish(0) = 0
  // k = 2, weight [1, 10]: y_t = x_{t-1} + 10 x_t with the past state as x_{-1}.
  auto c = run(R"(<ir_version: 10, opset_import: ["" : 27]>
g (float[1,1,3] x, float[1,1,2] w, float[1] b, float[1,1,1] p) => (float[1,1,3] y, float[1,1,1] st) { y, st = CausalConvWithState(x, w, b, p) })",
               {{"x", make_tensor<float>({1, 1, 3}, {1, 2, 3})},
                {"w", make_tensor<float>({1, 1, 2}, {1, 10})},
                {"b", make_tensor<float>({1}, {0.5f})},
                {"p", make_tensor<float>({1, 1, 1}, {4})}});
  EXPECT_EQ(vals<float>(c, 0), (std::vector<float>{14.5f, 21.5f, 32.5f}));
  EXPECT_EQ(vals<float>(c, 1), (std::vector<float>{3}));
}

TEST(NnOps, LinearAttentionLinearRule) {
  // d_k = d_v = 1, one head: S accumulates k v; o_t = scale q_t S_t with scale 1.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 27]>
g (float[1,2,1] q, float[1,2,1] k, float[1,2,1] v) => (float[1,2,1] o, float[1,1,1,1] s) {
  o, s = LinearAttention<q_num_heads = 1, kv_num_heads = 1, update_rule = "linear", scale = 1.0>(q, k, v)
})",
               {{"q", make_tensor<float>({1, 2, 1}, {1, 2})},
                {"k", make_tensor<float>({1, 2, 1}, {1, 1})},
                {"v", make_tensor<float>({1, 2, 1}, {3, 4})}});
  EXPECT_EQ(vals<float>(r, 0), (std::vector<float>{3, 14}));
  EXPECT_EQ(vals<float>(r, 1), (std::vector<float>{7}));
}

}  // namespace
}  // namespace onnxtrim
