// The 2-D Transpose kernel (tiles of one cache line, split over threads when large) against
// the definition y[i][j] = x[j][i], for every element width and sizes that are not multiples
// of a tile.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ir/tensor.h"
#include "../unit/test_util.h"

namespace onnxtrim {
namespace {

void check(ir::DataType dt, const std::string& type, int64_t rows, int64_t cols) {
  auto m = test::parse("<ir_version: 8, opset_import: [\"\" : 17]>\ng (" + type + "[A, B] x) => (" + type +
                       "[B, A] y) {\n  y = Transpose(x)\n}\n");
  ASSERT_TRUE(m);
  ir::Tensor x(dt, {rows, cols});
  const size_t w = x.byte_size() / static_cast<size_t>(rows * cols);
  uint8_t* p = x.mutable_bytes();
  for (size_t k = 0; k < x.byte_size(); ++k) p[k] = static_cast<uint8_t>((k * 131 + k / 7) & 0xff);
  eval::Interpreter interp(*m);
  auto r = interp.run({{"x", ir::RuntimeValue::of(x)}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const ir::Tensor& y = r.value()[0].tensor;
  ASSERT_EQ(y.dims(), (std::vector<int64_t>{cols, rows}));
  size_t bad = 0;
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < rows; ++j)
      bad += std::memcmp(y.bytes() + w * static_cast<size_t>(i * rows + j),
                         x.bytes() + w * static_cast<size_t>(j * cols + i), w) != 0;
  EXPECT_EQ(bad, 0u) << type << " " << rows << "x" << cols;
}

TEST(Transpose2D, EveryWidthAndRaggedTiles) {
  for (auto [r, c] : {std::pair<int64_t, int64_t>{1, 1}, {3, 70}, {37, 65}, {64, 64}, {129, 17}}) {
    check(ir::DataType::kUint8, "uint8", r, c);
    check(ir::DataType::kFloat16, "float16", r, c);
    check(ir::DataType::kFloat, "float", r, c);
    check(ir::DataType::kDouble, "double", r, c);
  }
}

TEST(Transpose2D, LargeOnesSplitOverThreads) {
  check(ir::DataType::kFloat, "float", 1501, 1499);  // 9 MB: past the threshold for threads
  check(ir::DataType::kDouble, "double", 1030, 1025);
  check(ir::DataType::kUint8, "uint8", 2900, 3001);
}

// y = Transpose(x, perm) by the definition: y[i_0..i_{r-1}] = x[j] with j[perm[k]] = i_k.
std::vector<uint8_t> by_definition(const ir::Tensor& x, const std::vector<int64_t>& perm) {
  const auto& d = x.dims();
  size_t r = d.size(), w = x.byte_size() / static_cast<size_t>(x.numel());
  std::vector<int64_t> out(r), in_strides(r, 1), idx(r, 0);
  for (size_t k = 0; k < r; ++k) out[k] = d[static_cast<size_t>(perm[k])];
  for (size_t k = r; k-- > 1;) in_strides[k - 1] = in_strides[k] * d[k];
  std::vector<uint8_t> y(x.byte_size());
  for (int64_t n = 0; n < x.numel(); ++n) {
    int64_t src = 0;
    for (size_t k = 0; k < r; ++k) src += idx[k] * in_strides[static_cast<size_t>(perm[k])];
    std::memcpy(y.data() + w * static_cast<size_t>(n), x.bytes() + w * static_cast<size_t>(src), w);
    for (size_t k = r; k-- > 0;) {
      if (++idx[k] < out[k]) break;
      idx[k] = 0;
    }
  }
  return y;
}

ir::Tensor patterned(ir::DataType dt, std::vector<int64_t> dims) {
  ir::Tensor x(dt, std::move(dims));
  uint8_t* p = x.mutable_bytes();
  for (size_t k = 0; k < x.byte_size(); ++k) p[k] = static_cast<uint8_t>((k * 131 + k / 7) & 0xff);
  return x;
}

ir::Tensor run_transpose(const ir::Tensor& x, const std::vector<int64_t>& perm, const std::string& type) {
  std::string dims, perm_s;
  for (size_t k = 0; k < x.dims().size(); ++k) dims += (k ? ", " : "") + std::to_string(x.dims()[k]);
  for (size_t k = 0; k < perm.size(); ++k) perm_s += (k ? ", " : "") + std::to_string(perm[k]);
  auto m = test::parse("<ir_version: 8, opset_import: [\"\" : 17]>\ng (" + type + "[" + dims + "] x) => (" + type +
                       " y) {\n  y = Transpose <perm = [" + perm_s + "]> (x)\n}\n");
  EXPECT_TRUE(m);
  if (!m) return {};
  eval::Interpreter interp(*m);
  auto r = interp.run({{"x", ir::RuntimeValue::of(x)}});
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  if (!r) return {};
  return r.value()[0].tensor;
}

// A large 2-D transpose is a recipe until it is read whole: any range of it is made alone, equal
// to the definition (element ends, row ends and partial elements included), and reading it
// whole makes it once.
TEST(TransposeDeferred, LargeResultIsMadeWhenRead) {
  ir::Tensor x = patterned(ir::DataType::kFloat, {700, 401});  // 1.1 MB
  std::vector<uint8_t> want = by_definition(x, {1, 0});
  ir::Tensor y = run_transpose(x, {1, 0}, "float");
  ASSERT_EQ(y.dims(), (std::vector<int64_t>{401, 700}));
  EXPECT_TRUE(y.deferred());
  const size_t row = 700 * 4;
  for (auto [off, n] : std::vector<std::pair<size_t, size_t>>{
           {0, 4}, {3, 5}, {1, 2}, {row - 6, 20}, {row, row}, {1000, 50000}, {want.size() - 3, 3}, {0, want.size()}}) {
    std::vector<uint8_t> got(n);
    y.read(off, n, got.data());
    EXPECT_EQ(std::memcmp(got.data(), want.data() + off, n), 0) << off << "+" << n;
  }
  EXPECT_TRUE(y.deferred());  // reading parts made nothing whole
  // Whole output rows, as many as a cache line of a source row holds, are made fastest.
  EXPECT_EQ(y.read_grain(), 16u * row);
  ASSERT_EQ(y.byte_size(), want.size());
  EXPECT_EQ(std::memcmp(y.bytes(), want.data(), want.size()), 0);
  EXPECT_FALSE(y.deferred());
  EXPECT_EQ(y.read_grain(), 1u);
  std::vector<uint8_t> again(16);
  y.read(row + 8, 16, again.data());  // made: read from the bytes
  EXPECT_EQ(std::memcmp(again.data(), want.data() + row + 8, 16), 0);
}

// 2-D float transposes of sizes around the kernel's blocks (8 x 8 registers, 64 x 64 tiles,
// 256 x 256 blocks): whole blocks, the rows and columns past them, and both at once, equal to
// the definition whether made at once (small) or by ranges (deferred).
TEST(TransposeFloat, EveryShapeAroundTheBlocksMatchesTheDefinition) {
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{
           {8, 8}, {1, 9}, {9, 1}, {9, 17}, {64, 72}, {65, 63}, {130, 259}, {257, 255}, {520, 600}, {264, 1031}}) {
    ir::Tensor x = patterned(ir::DataType::kFloat, {r, c});
    ir::Tensor y = run_transpose(x, {1, 0}, "float");
    std::vector<uint8_t> want = by_definition(x, {1, 0});
    ASSERT_EQ(y.byte_size(), want.size());
    std::vector<uint8_t> got(want.size());
    y.read(0, got.size(), got.data());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << r << "x" << c;
  }
}

// Axes of size 1 and input axes that stay side by side are merged: such permutations are 2-D
// transposes (deferred when large), or keep the bytes' order (the result shares them).
TEST(TransposeDeferred, MergedAxes) {
  struct Case {
    std::vector<int64_t> dims, perm;
    bool deferred, shares;
  };
  for (const Case& c : std::vector<Case>{
           {{2, 3, 1, 500, 60}, {3, 4, 2, 0, 1}, true, false},  // (500*60) x (2*3)
           {{60, 1, 3000}, {2, 1, 0}, true, false},
           {{7, 1, 9000}, {1, 0, 2}, false, true},         // moves a unit axis only
           {{1, 300, 1, 400}, {2, 0, 3, 1}, true, false},  // 300 x 400 swapped
           {{20, 30, 400}, {1, 0, 2}, false, false},       // three groups: not 2-D
           {{4, 5, 6}, {2, 0, 1}, false, false},           // 2-D, but small
       }) {
    ir::Tensor x = patterned(ir::DataType::kFloat, c.dims);
    ir::Tensor y = run_transpose(x, c.perm, "float");
    EXPECT_EQ(y.deferred(), c.deferred) << ::testing::PrintToString(c.dims);
    EXPECT_EQ(y.buffer() == x.buffer(), c.shares) << ::testing::PrintToString(c.dims);
    std::vector<uint8_t> want = by_definition(x, c.perm);
    ASSERT_EQ(y.byte_size(), want.size());
    EXPECT_EQ(std::memcmp(y.bytes(), want.data(), want.size()), 0) << ::testing::PrintToString(c.dims);
  }
  // Other widths through the deferred path.
  for (auto [dt, type] : {std::pair{ir::DataType::kUint8, "uint8"}, std::pair{ir::DataType::kFloat16, "float16"},
                          std::pair{ir::DataType::kDouble, "double"}}) {
    ir::Tensor x = patterned(dt, {513, 1031});
    ir::Tensor y = run_transpose(x, {1, 0}, type);
    std::vector<uint8_t> want = by_definition(x, {1, 0});
    std::vector<uint8_t> part(777);
    y.read(1031, 777, part.data());
    EXPECT_EQ(std::memcmp(part.data(), want.data() + 1031, 777), 0) << type;
    EXPECT_EQ(std::memcmp(y.bytes(), want.data(), want.size()), 0) << type;
  }
}

// The only holder of a deferred tensor writes where the bytes were made; the source is not
// touched.
TEST(TransposeDeferred, SoleOwnerWritesInPlace) {
  ir::Tensor x = patterned(ir::DataType::kFloat, {600, 300});
  std::vector<uint8_t> want = by_definition(x, {1, 0});
  ir::Tensor y = run_transpose(x, {1, 0}, "float");
  ASSERT_TRUE(y.deferred());
  float* p = y.mutable_data<float>();
  EXPECT_EQ(static_cast<const void*>(p), static_cast<const void*>(y.data<float>()));
  EXPECT_EQ(std::memcmp(p, want.data(), want.size()), 0);
  float x0 = x.data<float>()[0];
  p[0] = x0 + 1.0f;
  EXPECT_EQ(x.data<float>()[0], x0);
  EXPECT_EQ(y.data<float>()[0], x0 + 1.0f);
  // A shared one is copied first.
  ir::Tensor z = run_transpose(x, {1, 0}, "float");
  ir::Tensor z2 = z;
  z.mutable_data<float>()[1] = 5.0f;
  EXPECT_EQ(std::memcmp(z2.bytes(), want.data(), want.size()), 0);
}

}  // namespace
}  // namespace onnxtrim
