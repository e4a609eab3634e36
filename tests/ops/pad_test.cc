// Unit tests of Pad with negative pads: the axis is cropped first and the padding mode sees
// only what is left (issue 12, F6: wrap used to wrap the uncropped axis).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../unit/test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;

Result<std::vector<RuntimeValue>> pad(const std::string& mode, const std::vector<int64_t>& pads, const ir::Tensor& x,
                                      const std::string& out_dims) {
  std::string dims;
  for (size_t i = 0; i < x.dims().size(); ++i) dims += (i ? "," : "") + std::to_string(x.dims()[i]);
  std::string p;
  for (size_t i = 0; i < pads.size(); ++i) p += (i ? ", " : "") + std::to_string(pads[i]);
  auto m = test::parse("<ir_version: 9, opset_import: [\"\" : 19]>\ng (float[" + dims + "] x) => (float[" + out_dims +
                       "] y) {\n  p = Constant <value = int64[" + std::to_string(pads.size()) + "] {" + p +
                       "}> ()\n  y = Pad <mode = \"" + mode + "\"> (x, p)\n}\n");
  if (!m) return Status(ErrorCode::kInvalidModel, "parse failed");
  eval::Interpreter interp(*m);
  return interp.run({{"x", RuntimeValue::of(x)}});
}

std::vector<float> vals(const Result<std::vector<RuntimeValue>>& r) {
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  return r.is_ok() ? r.value()[0].tensor.to_vector<float>() : std::vector<float>{};
}

TEST(PadNegative, WrapCropsFirst) {
  ir::Tensor x = make_tensor<float>({5}, {0, 1, 2, 3, 4});
  // Crop the first element, then wrap 2 at the end around [1, 2, 3, 4].
  EXPECT_EQ(vals(pad("wrap", {-1, 2}, x, "6")), (std::vector<float>{1, 2, 3, 4, 1, 2}));
  // Crop the last element, then wrap 2 at the start around [0, 1, 2, 3].
  EXPECT_EQ(vals(pad("wrap", {2, -1}, x, "6")), (std::vector<float>{2, 3, 0, 1, 2, 3}));
  // Both sides cropped: nothing to pad.
  EXPECT_EQ(vals(pad("wrap", {-1, -2}, x, "2")), (std::vector<float>{1, 2}));
}

TEST(PadNegative, WrapTwoAxes) {
  ir::Tensor x = make_tensor<float>({2, 3}, {0, 1, 2, 10, 11, 12});
  // Rows: pad 1 before (wrap); columns: crop the first, pad 1 after around [1, 2] / [11, 12].
  EXPECT_EQ(vals(pad("wrap", {1, -1, 0, 1}, x, "3,3")), (std::vector<float>{11, 12, 11, 1, 2, 1, 11, 12, 11}));
}

TEST(PadNegative, ReflectAndEdgeSeeTheCroppedAxis) {
  ir::Tensor x = make_tensor<float>({5}, {0, 1, 2, 3, 4});
  // Cropped to [0, 1, 2]: reflect 2 at the start gives 2, 1; edge repeats 0.
  EXPECT_EQ(vals(pad("reflect", {2, -2}, x, "5")), (std::vector<float>{2, 1, 0, 1, 2}));
  EXPECT_EQ(vals(pad("edge", {2, -2}, x, "5")), (std::vector<float>{0, 0, 0, 1, 2}));
  // Cropped to [2, 3, 4]: the edge after is 4, reflecting from 4 gives 3.
  EXPECT_EQ(vals(pad("edge", {-2, 1}, x, "4")), (std::vector<float>{2, 3, 4, 4}));
  EXPECT_EQ(vals(pad("reflect", {-2, 1}, x, "4")), (std::vector<float>{2, 3, 4, 3}));
  EXPECT_EQ(vals(pad("constant", {-2, 1}, x, "4")), (std::vector<float>{2, 3, 4, 0}));
}

TEST(PadNegative, CroppingMoreThanTheAxisIsAnError) {
  ir::Tensor x = make_tensor<float>({2}, {0, 1});
  // Output length 2 - 3 + 2 = 1, but the crop removes 3 of 2 elements.
  EXPECT_FALSE(pad("wrap", {-3, 2}, x, "1").is_ok());
}

}  // namespace
}  // namespace onnxtrim
