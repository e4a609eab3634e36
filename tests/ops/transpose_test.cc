// The 2-D Transpose kernel (tiles of one cache line, split over threads when large) against
// the definition y[i][j] = x[j][i], for every element width and sizes that are not multiples
// of a tile.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
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
      bad += std::memcmp(y.bytes() + w * static_cast<size_t>(i * rows + j), x.bytes() + w * static_cast<size_t>(j * cols + i), w) != 0;
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
  check(ir::DataType::kFloat, "float", 1501, 1499);   // 9 MB: past the threshold for threads
  check(ir::DataType::kDouble, "double", 1030, 1025);
  check(ir::DataType::kUint8, "uint8", 2900, 3001);
}

}  // namespace
}  // namespace onnxtrim
