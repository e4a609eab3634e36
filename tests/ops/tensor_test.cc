// The tensor family (src/ops/tensor/): TensorScatter, CenterCropPad, ReverseSequence, Compress,
// Col2Im, Unique; exact values worked out by hand on tiny inputs, one edge case per op. Pad and
// Transpose have their own files (pad_test.cc, transpose_test.cc).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;
using test::dims;
using test::run;
using test::vals;

TEST(TensorOps, TensorScatterCircular) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 24]>
g (float[1,3,1] c, float[1,2,1] u, int64[1] w) => (float[1,3,1] y) { y = TensorScatter<mode = "circular", axis = 1>(c, u, w) })",
               {{"c", make_tensor<float>({1, 3, 1}, {0, 0, 0})},
                {"u", make_tensor<float>({1, 2, 1}, {7, 8})},
                {"w", make_tensor<int64_t>({1}, {2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{8, 0, 7}));
}

TEST(TensorOps, CenterCropPadCropsAndPads) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 18]>
g (int32[4] x, int64[1] s) => (int32[2] y) { y = CenterCropPad(x, s) })",
               {{"x", make_tensor<int32_t>({4}, {1, 2, 3, 4})}, {"s", make_tensor<int64_t>({1}, {2})}});
  EXPECT_EQ(vals<int32_t>(r), (std::vector<int32_t>{2, 3}));
  auto p = run(R"(<ir_version: 10, opset_import: ["" : 18]>
g (int32[2] x, int64[1] s) => (int32[5] y) { y = CenterCropPad(x, s) })",
               {{"x", make_tensor<int32_t>({2}, {1, 2})}, {"s", make_tensor<int64_t>({1}, {5})}});
  EXPECT_EQ(vals<int32_t>(p), (std::vector<int32_t>{0, 1, 2, 0, 0}));  // the odd pad goes after
}

TEST(TensorOps, ReverseSequenceCompressCol2Im) {
  auto rs = run(R"(<ir_version: 10, opset_import: ["" : 10]>
g (int64[3,2] x, int64[2] l) => (int64[3,2] y) { y = ReverseSequence<batch_axis = 1, time_axis = 0>(x, l) })",
                {{"x", make_tensor<int64_t>({3, 2}, {1, 10, 2, 20, 3, 30})}, {"l", make_tensor<int64_t>({2}, {3, 2})}});
  EXPECT_EQ(vals<int64_t>(rs), (std::vector<int64_t>{3, 20, 2, 10, 1, 30}));
  ir::Tensor cond(ir::DataType::kBool, {2});
  cond.mutable_bytes()[1] = 1;
  auto cp = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (float[2,2] x, bool[2] c) => (float[2,1] y) { y = Compress<axis = -1>(x, c) })",
                {{"x", make_tensor<float>({2, 2}, {1, 2, 3, 4})}, {"c", cond}});
  EXPECT_EQ(vals<float>(cp), (std::vector<float>{2, 4}));
  // Two 1x2 blocks that overlap on the middle pixel of a 1x3 image add up there.
  auto ci = run(R"(<ir_version: 10, opset_import: ["" : 18]>
g (float[1,2,2] x, int64[2] im, int64[2] bl) => (float[1,1,1,3] y) { y = Col2Im(x, im, bl) })",
                {{"x", make_tensor<float>({1, 2, 2}, {1, 2, 10, 20})},
                 {"im", make_tensor<int64_t>({2}, {1, 3})},
                 {"bl", make_tensor<int64_t>({2}, {1, 2})}});
  EXPECT_EQ(vals<float>(ci), (std::vector<float>{1, 12, 20}));
}

TEST(TensorOps, UniqueUnsortedWithAllOutputs) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (int64[5] x) => (int64[3] y, int64[3] i, int64[5] inv, int64[3] n) { y, i, inv, n = Unique<sorted = 0>(x) })",
               {{"x", make_tensor<int64_t>({5}, {3, 1, 3, 2, 1})}});
  EXPECT_EQ(vals<int64_t>(r, 0), (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(vals<int64_t>(r, 1), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(vals<int64_t>(r, 2), (std::vector<int64_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(vals<int64_t>(r, 3), (std::vector<int64_t>{2, 2, 1}));
  auto e = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (float[0] x) => (float[0] y) { y = Unique(x) })",
               {{"x", make_tensor<float>({0}, {})}});
  EXPECT_EQ(dims(e), (ops::Dims{0}));
}

}  // namespace
}  // namespace onnxtrim
