// fuse_conv_mul: a per-channel scale of a Conv goes into its weights and bias; a scale along
// another axis stays; a graph output keeps its name.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::expect_same_outputs_loop;
using test::fuse;

TEST(FuseConvMul, PerChannelScaleGoesIntoWeightsAndBias) {
  auto s = fuse("fuse_conv_mul", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Mul(c, y0)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseConvMul, ConstantAlongAnotherAxisStays) {
  auto s = fuse("fuse_conv_mul", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Mul(y0, row)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);
}

TEST(FuseConvMul, GraphOutputKeepsItsName) {
  auto s = fuse("fuse_conv_mul", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n y = Mul(y0, c)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
