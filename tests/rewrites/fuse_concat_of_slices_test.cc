// fuse_concat_of_slices: slices that cover their input in order, concatenated along the sliced
// axis, are the input; gaps, overlaps and another order stay; graph outputs; If branch.
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
using test::run;
using test::slice_model;

TEST(FuseConcatOfSlices, SlicesCoveringTheInputInOrderAreTheInput) {
  auto s = run(slice_model("2,6,3", "2,6,3",
                           "p = Slice(x, z, e2, a1)\n q = Slice(x, s2, e5, a1)\n r = Slice(x, e5, big, a1)\n"
                           " c = Concat <axis = -2> (p, q, r)\n y = Relu(c)"),
               "fuse_concat_of_slices");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_bit_exact(s);
}

TEST(FuseConcatOfSlices, UnknownDimWithOpenEnd) {
  auto s = run(
      slice_model("N,3", "?,3",
                  "p = Slice(x, z, e2, a0)\n r = Slice(x, e2, big, a0)\n c = Concat <axis = 0> (p, r)\n y = Relu(c)"),
      "fuse_concat_of_slices");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"N", 5}});
  expect_same_outputs(s, 2, {{"N", 1}});
}

TEST(FuseConcatOfSlices, GapsOverlapsAndOrderStay) {
  auto gap = run(
      slice_model("2,6,3", "2,5,3",
                  "p = Slice(x, z, e2, a1)\n r = Slice(x, s3, big, a1)\n c = Concat <axis = 1> (p, r)\n y = Relu(c)"),
      "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*gap.model->graph, "Concat"), 1u) << gap.printed;
  auto order = run(
      slice_model("2,6,3", "2,6,3",
                  "r = Slice(x, e2, big, a1)\n p = Slice(x, z, e2, a1)\n c = Concat <axis = 1> (r, p)\n y = Relu(c)"),
      "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*order.model->graph, "Concat"), 1u) << order.printed;
  auto axis =
      run(slice_model("2,6,3", "2,12,2",
                      "p = Slice(x, z, e2, a2)\n r = Slice(x, z, e2, a2)\n c = Concat <axis = 1> (p, r)\n y = Relu(c)"),
          "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*axis.model->graph, "Concat"), 1u) << axis.printed;
}

TEST(FuseConcatOfSlices, GraphOutputs) {
  // The Concat is a graph output: the input's producer takes over its name.
  auto s =
      run(slice_model(
              "2,6,3", "2,6,3",
              "x2 = Relu(x)\n p = Slice(x2, z, e3, a1)\n r = Slice(x2, s3, big, a1)\n y = Concat <axis = 1> (p, r)"),
          "fuse_concat_of_slices");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
  // The input is a graph input: the Concat stays.
  auto t = run(slice_model("2,6,3", "2,6,3",
                           "p = Slice(x, z, e3, a1)\n r = Slice(x, s3, big, a1)\n y = Concat <axis = 1> (p, r)"),
               "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*t.model->graph, "Concat"), 1u) << t.printed;
  // A slice that is a graph output: stays.
  auto u = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,6] x) => (float[2,6] y, float[2,3] p)
<int64[1] a1 = {1}, int64[1] z = {0}, int64[1] e3 = {3}, int64[1] e6 = {6}>
{ p = Slice(x, z, e3, a1)
  r = Slice(x, e3, e6, a1)
  c = Concat <axis = 1> (p, r)
  y = Relu(c) }
)",
               "fuse_concat_of_slices");
  EXPECT_EQ(count_ops(*u.model->graph, "Concat"), 1u) << u.printed;
}

TEST(FuseConcatOfSlices, InsideIfBranch) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[4,6] x) => (float[4,6] y)
<int64[1] a1 = {1}, int64[1] z = {0}, int64[1] e3 = {3}, int64[1] e6 = {6}>
{
  y = If(k) <
    then_branch = t1 () => (float[4,6] o1) { p = Slice(x, z, e3, a1)  r = Slice(x, e3, e6, a1)  c = Concat <axis = 1> (p, r)  o1 = Relu(c) },
    else_branch = t2 () => (float[4,6] o2) { o2 = Neg(x) }
  >
}
)",
               "fuse_concat_of_slices");
  EXPECT_EQ(s.model->graph->first_node()->subgraphs()[0]->num_nodes(), 1u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
