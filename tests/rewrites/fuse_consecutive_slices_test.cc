// fuse_consecutive_slices: two Slices in a row become one where exact (disjoint axes, composed
// steps on one axis, unknown dims with non-negative bounds); bit-exact outputs.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_bit_exact;
using test::expect_same_outputs;
using test::expect_same_outputs_loop;
using test::find_op;
using test::run;
using test::slice_model;

TEST(FuseConsecutiveSlices, DisjointAxesBecomeOneSlice) {
  auto s = run(slice_model("4,6,8", "4,4,5", "t = Slice(x, s1, e5, a1)\n u = Slice(t, s2, em1, a2)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConsecutiveSlices, SameAxisComposes) {
  // [1, 5) then [-3, -1) of the 4 left: elements 2, 3 of x's axis 1.
  auto s = run(slice_model("4,6,8", "4,2,8", "t = Slice(x, s1, e5, a1)\n u = Slice(t, sm3, em1, a1)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConsecutiveSlices, UnknownDimNeedsNonNegativeBounds) {
  auto s = run(slice_model("N,8", "?,8", "t = Slice(x, s1, big, a0)\n u = Slice(t, s2, e5, a0)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"N", 9}});
  expect_same_outputs(s, 2, {{"N", 4}});
  auto t = run(slice_model("N,8", "?,8", "t = Slice(x, s1, em1, a0)\n u = Slice(t, s2, e5, a0)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*t.model->graph, "Slice"), 2u) << t.printed;
}

TEST(FuseConsecutiveSlices, StepOnASharedAxisStays) {
  auto s = run(slice_model("4,6,8", "4,2,8", "t = Slice(x, z, e5, a1, st2)\n u = Slice(t, s1, big, a1)\n y = Relu(u)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 2u) << s.printed;
}

TEST(FuseConsecutiveSlices, GraphOutputs) {
  // The inner slice is a graph output: kept. The outer one is: fused, its name kept.
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,6] x) => (float[4,4] t, float[2,4] y)
<int64[1] a0 = {0}, int64[1] a1 = {1}, int64[1] s1 = {1}, int64[1] e5 = {5}, int64[1] e3 = {3}>
{ t = Slice(x, s1, e5, a1)
  y = Slice(t, s1, e3, a0) }
)",
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 2u) << s.printed;
  auto u = run(slice_model("4,6,8", "4,4,5", "t = Slice(x, s1, e5, a1)\n y = Slice(t, s2, em1, a2)"),
               "fuse_consecutive_slices");
  EXPECT_EQ(u.nodes(), 1u) << u.printed;
  EXPECT_EQ(u.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(u);
}

TEST(FuseConsecutiveSlices, AttributeFormBeforeOpset10) {
  auto s = run(R"(<ir_version: 4, opset_import: ["" : 9]>
g (float[4,6,8] x) => (float[2,3,8] y)
{ t = Slice <starts = [1, 1], ends = [4, 5], axes = [0, 1]> (x)
  u = Slice <starts = [1], ends = [3], axes = [1]> (t)
  y = Relu(u) }
)",
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConsecutiveSlices, InsideLoopBody) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[6,4] x) => (float[6,4] y)
<int64[1] a0 = {0}, int64[1] a1 = {1}, int64[1] z = {0}, int64[1] e3 = {3}, int64[1] e6 = {6}, int64[1] s1 = {1}>
{
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = bd (int64 i, bool c, float[6,4] acc) => (bool co, float[6,4] out) {
      co = Identity(c)
      p = Slice(acc, z, e6, a0)
      q = Slice(p, s1, e3, a1)
      r = Concat <axis = 1> (q, q)
      out = Concat <axis = 1> (r, r)
    }
  >
}
)",
               "fuse_consecutive_slices");
  EXPECT_EQ(count_ops(*find_op(*s.model->graph, "Loop")->subgraphs()[0], "Slice"), 1u) << s.printed;
  expect_same_outputs_loop(s);
}

}  // namespace
}  // namespace onnxtrim
