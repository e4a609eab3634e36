// eliminate_nop_ops: the op files' folds of a node that computes nothing (a Cast to its own type,
// a Dropout of ratio 0, a Transpose by the identity, ...): the node count after the pass and the
// outputs on random inputs; cases where a fold must not fire; graph-output and subgraph cases.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_folded;
using test::expect_same_outputs;
using test::find_op;
using test::run_fold_pass;
using test::simplify_text;

TEST(EliminateNopOps, CastToSameType) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "c = Cast <to = 1> (x)\n y = Relu(c)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, CastToOtherTypeStays) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "c = Cast <to = 11> (x)\n y = Relu(c)", "(float[2,3] x) => (double[2,3] y)");
  EXPECT_EQ(s.nodes(), 2u);
}

TEST(EliminateNopOps, TransposeIdentityPerm) {
  auto s = run_fold_pass("eliminate_nop_ops", "t = Transpose <perm = [0, 1, 2]> (x)\n y = Relu(t)",
                         "(float[2,3,4] x) => (float[2,3,4] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, TransposeRealPermStays) {
  auto s = run_fold_pass("eliminate_nop_ops", "t = Transpose <perm = [0, 2, 1]> (x)\n y = Relu(t)",
                         "(float[2,3,4] x) => (float[2,4,3] y)");
  EXPECT_EQ(s.nodes(), 2u);
}

TEST(EliminateNopOps, ReshapeToSameShape) {
  auto s = run_fold_pass("eliminate_nop_ops", "sh = Shape(x)\n r = Reshape(x, sh)\n y = Relu(r)",
                         "(float[batch,3] x) => (float[batch,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, ReshapeChangingShapeStays) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "s = Constant <value = int64[2] {3, 2}> ()\n r = Reshape(x, s)\n y = Relu(r)",
                    "(float[2,3] x) => (float[3,2] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u);
}

TEST(EliminateNopOps, ExpandToSameShape) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "s = Constant <value = int64[2] {1, 3}> ()\n e = Expand(x, s)\n y = Relu(e)",
                    "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, ExpandThatBroadcastsStays) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "s = Constant <value = int64[2] {4, 3}> ()\n e = Expand(x, s)\n y = Relu(e)",
                    "(float[1,3] x) => (float[4,3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Expand"), 1u);
}

TEST(EliminateNopOps, FlattenOf2D) {
  auto s = run_fold_pass("eliminate_nop_ops", "f = Flatten <axis = 1> (x)\n y = Relu(f)",
                         "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SqueezeWithoutUnitDims) {
  auto s = run_fold_pass("eliminate_nop_ops", "q = Squeeze(x)\n y = Relu(q)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, DropoutInInference) {
  auto s = run_fold_pass("eliminate_nop_ops", "d, mask = Dropout(x)\n y = Relu(d)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, DropoutWithUsedMaskStays) {
  auto s = run_fold_pass("eliminate_nop_ops", "d, mask = Dropout(x)\n y = Relu(d)",
                         "(float[2,3] x) => (float[2,3] y, bool[2,3] mask)");
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 1u);
}

TEST(EliminateNopOps, ConcatOfOneInput) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "c = Concat <axis = 0> (x)\n y = Relu(c)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SplitIntoOneOutput) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "c = Split <axis = 1> (x)\n y = Relu(c)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SliceThatTakesEverything) {
  auto s = run_fold_pass(
      "eliminate_nop_ops",
      "st = Constant <value = int64[1] {0}> ()\n en = Constant <value = int64[1] {9223372036854775807}> ()\n"
      " ax = Constant <value = int64[1] {1}> ()\n c = Slice(x, st, en, ax)\n y = Relu(c)",
      "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SliceThatCutsStays) {
  auto s = run_fold_pass("eliminate_nop_ops",
                         "st = Constant <value = int64[1] {1}> ()\n en = Constant <value = int64[1] {3}> ()\n"
                         " ax = Constant <value = int64[1] {1}> ()\n c = Slice(x, st, en, ax)\n y = Relu(c)",
                         "(float[2,3] x) => (float[2,2] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u);
}

TEST(EliminateNopOps, TileByOnes) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "r = Constant <value = int64[2] {1, 1}> ()\n t = Tile(x, r)\n y = Relu(t)",
                    "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, ResizeThatKeepsTheSize) {
  // Scale 1 with linear half_pixel samples every element exactly; sizes equal to the input
  // with nearest too.
  auto s = run_fold_pass(
      "eliminate_nop_ops",
      "sc = Constant <value = float[4] {1, 1, 1, 1}> ()\n r = Resize <mode = \"linear\"> (x, , sc)\n y = Relu(r)",
      "(float[1,2,3,4] x) => (float[1,2,3,4] y)");
  expect_folded(s, 1);
  auto t = run_fold_pass(
      "eliminate_nop_ops",
      "sz = Constant <value = int64[4] {1, 2, 3, 4}> ()\n r = Resize <mode = \"cubic\"> (x, , , sz)\n y = Relu(r)",
      "(float[1,2,3,4] x) => (float[1,2,3,4] y)");
  expect_folded(t, 1);
}

TEST(EliminateNopOps, ResizeThatScalesOrCropsStays) {
  auto up = run_fold_pass("eliminate_nop_ops",
                          "sc = Constant <value = float[4] {1, 1, 2, 2}> ()\n r = Resize (x, , sc)\n y = Relu(r)",
                          "(float[1,2,3,4] x) => (float[1,2,6,8] y)");
  EXPECT_EQ(count_ops(*up.model->graph, "Resize"), 1u);
  // tf_crop_and_resize samples the region of interest even at scale 1.
  auto crop =
      run_fold_pass("eliminate_nop_ops",
                    "roi = Constant <value = float[8] {0, 0, 0.2, 0.2, 1, 1, 0.8, 0.8}> ()\n"
                    " sc = Constant <value = float[4] {1, 1, 1, 1}> ()\n"
                    " r = Resize <mode = \"linear\", coordinate_transformation_mode = \"tf_crop_and_resize\"> (x, roi, "
                    "sc)\n y = Relu(r)",
                    "(float[1,2,5,5] x) => (float[1,2,3,3] y)");
  EXPECT_EQ(count_ops(*crop.model->graph, "Resize"), 1u);
  expect_same_outputs(crop);
}

TEST(EliminateNopOps, ResizeGraphOutputAndSymbolicSizes) {
  // The Resize produces the graph output: it goes, and the output keeps its name. The sizes
  // come from the input's own (symbolic) shape.
  auto s =
      run_fold_pass("eliminate_nop_ops", "r = Relu(x)\n sh = Shape(r)\n y = Resize <mode = \"nearest\"> (r, , , sh)",
                    "(float[N,3] x) => (float[N,3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Resize"), 0u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(EliminateNopOps, ResizeInsideIfBranch) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[1,1,2,2] x) => (float[1,1,2,2] y) {
  y = If(c) <
    then_branch = t () => (float[1,1,2,2] a) {
      sc = Constant <value = float[4] {1, 1, 1, 1}> ()
      n = Neg(x)
      r = Resize <mode = "nearest"> (n, , sc)
      a = Relu(r)
    },
    else_branch = e () => (float[1,1,2,2] b) { b = Neg(x) }
  >
}
)",
                               {"infer_shapes", "eliminate_nop_ops", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Resize"), std::string::npos) << s.printed;
  expect_same_outputs(s);
}

TEST(EliminateNopOps, GraphOutputKeepsItsName) {
  auto s =
      run_fold_pass("eliminate_nop_ops", "r = Relu(x)\n y = Cast <to = 1> (r)", "(float[2,3] x) => (float[2,3] y)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(EliminateNopOps, InsideLoopBody) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2] x) => (float[2] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) {
      co = Identity(c)
      k = Cast <to = 1> (acc)
      out = Neg(k)
    }
  >
}
)",
                               {"infer_shapes", "eliminate_nop_ops", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Cast"), std::string::npos) << s.printed;
}

TEST(DropoutRatioZero, IdentityWhateverTheTrainingMode) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x, float[2,4] z) => (float[2,4] y, float[2,4] w) {
  r = Constant <value = float {0}> ()
  t = Constant <value = bool {1}> ()
  d = Dropout(x, r, t)
  y = Relu(d)
  nz = Neg(z)
  w = Dropout(nz, r, t)
}
)");
  // (A Dropout straight from a graph input to a graph output would stay, as an Identity does:
  // the output's name cannot move onto the input.)
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 0u);
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "w");
  expect_same_outputs(s);
}

TEST(DropoutRatioZero, NonZeroRatioOrUsedMaskStays) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x) => (float[2,4] y, bool[2,4] m) {
  r = Constant <value = float {0}> ()
  h = Constant <value = float {0.5}> ()
  t = Constant <value = bool {1}> ()
  d = Dropout(x, h, t)
  y, m = Dropout(d, r, t)
}
)",
                         {"eliminate_nop_ops"});
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 2u);
}

TEST(DropoutRatioZero, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x, bool c) => (float[3] y) {
  r = Constant <value = float {0}> ()
  t = Constant <value = bool {1}> ()
  y = If(c) <then_branch = a () => (float[3] p) { d = Dropout(x, r, t)
                                                   p = Neg(d) },
             else_branch = b () => (float[3] q) { q = Identity(x) }>
}
)");
  const ir::Node* iff = find_op(*s.model->graph, "If");
  ASSERT_TRUE(iff);
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Dropout"), 0u);
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
