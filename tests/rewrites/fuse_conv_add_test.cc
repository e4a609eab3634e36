// fuse_conv_add: a per-channel constant added to a Conv goes into its bias; a constant along
// another axis, a shared Conv output and a graph output (its name kept).
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

TEST(FuseConvAdd, PerChannelConstantBecomesBias) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Add(y0, c)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 0u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u);
  expect_same_outputs(s);
}

TEST(FuseConvAdd, ConstantAlongAnotherAxisStays) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Add(y0, row)\n y = Relu(a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConvAdd, SharedConvOutputStays) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n a = Add(y0, c)\n y = Mul(a, y0)");
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u);
}

TEST(FuseConvAdd, GraphOutputKeepsItsName) {
  auto s = fuse("fuse_conv_add", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w)\n y = Add(y0, c)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->first_node()->op_type, "Conv");
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
