// The per-op local folds, one test named after each elimination of the seed checklist: the
// node count after the pass and the outputs (random inputs) are checked; negative cases where
// a fold must not fire; graph-output and subgraph cases for each fold pass.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

// Runs shape inference, the given fold pass and dead-node elimination; returns the result.
test::Simplified run(const std::string& pass, const std::string& body, const std::string& sig) {
  std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng " + sig + " {\n" + body + "\n}\n";
  return test::simplify_text(text, {"infer_shapes", pass, "eliminate_dead_nodes", "eliminate_unused_initializers"});
}

void expect_folded(const test::Simplified& s, size_t nodes) {
  EXPECT_EQ(s.nodes(), nodes) << s.printed;
  expect_same_outputs(s);
}

// ---------------------------------------------------------------- eliminate_nop_ops

TEST(EliminateNopOps, CastToSameType) {
  auto s = run("eliminate_nop_ops", "c = Cast <to = 1> (x)\n y = Relu(c)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, CastToOtherTypeStays) {
  auto s = run("eliminate_nop_ops", "c = Cast <to = 11> (x)\n y = Relu(c)", "(float[2,3] x) => (double[2,3] y)");
  EXPECT_EQ(s.nodes(), 2u);
}

TEST(EliminateNopOps, TransposeIdentityPerm) {
  auto s = run("eliminate_nop_ops", "t = Transpose <perm = [0, 1, 2]> (x)\n y = Relu(t)",
               "(float[2,3,4] x) => (float[2,3,4] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, TransposeRealPermStays) {
  auto s = run("eliminate_nop_ops", "t = Transpose <perm = [0, 2, 1]> (x)\n y = Relu(t)",
               "(float[2,3,4] x) => (float[2,4,3] y)");
  EXPECT_EQ(s.nodes(), 2u);
}

TEST(EliminateNopOps, ReshapeToSameShape) {
  auto s = run("eliminate_nop_ops", "sh = Shape(x)\n r = Reshape(x, sh)\n y = Relu(r)",
               "(float[batch,3] x) => (float[batch,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, ReshapeChangingShapeStays) {
  auto s = run("eliminate_nop_ops", "s = Constant <value = int64[2] {3, 2}> ()\n r = Reshape(x, s)\n y = Relu(r)",
               "(float[2,3] x) => (float[3,2] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u);
}

TEST(EliminateNopOps, ExpandToSameShape) {
  auto s = run("eliminate_nop_ops", "s = Constant <value = int64[2] {1, 3}> ()\n e = Expand(x, s)\n y = Relu(e)",
               "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, ExpandThatBroadcastsStays) {
  auto s = run("eliminate_nop_ops", "s = Constant <value = int64[2] {4, 3}> ()\n e = Expand(x, s)\n y = Relu(e)",
               "(float[1,3] x) => (float[4,3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Expand"), 1u);
}

TEST(EliminateNopOps, FlattenOf2D) {
  auto s = run("eliminate_nop_ops", "f = Flatten <axis = 1> (x)\n y = Relu(f)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SqueezeWithoutUnitDims) {
  auto s = run("eliminate_nop_ops", "q = Squeeze(x)\n y = Relu(q)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, DropoutInInference) {
  auto s = run("eliminate_nop_ops", "d, mask = Dropout(x)\n y = Relu(d)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, DropoutWithUsedMaskStays) {
  auto s = run("eliminate_nop_ops", "d, mask = Dropout(x)\n y = Relu(d)",
               "(float[2,3] x) => (float[2,3] y, bool[2,3] mask)");
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 1u);
}

TEST(EliminateNopOps, ConcatOfOneInput) {
  auto s = run("eliminate_nop_ops", "c = Concat <axis = 0> (x)\n y = Relu(c)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SplitIntoOneOutput) {
  auto s = run("eliminate_nop_ops", "c = Split <axis = 1> (x)\n y = Relu(c)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SliceThatTakesEverything) {
  auto s = run("eliminate_nop_ops",
               "st = Constant <value = int64[1] {0}> ()\n en = Constant <value = int64[1] {9223372036854775807}> ()\n"
               " ax = Constant <value = int64[1] {1}> ()\n c = Slice(x, st, en, ax)\n y = Relu(c)",
               "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, SliceThatCutsStays) {
  auto s = run("eliminate_nop_ops",
               "st = Constant <value = int64[1] {1}> ()\n en = Constant <value = int64[1] {3}> ()\n"
               " ax = Constant <value = int64[1] {1}> ()\n c = Slice(x, st, en, ax)\n y = Relu(c)",
               "(float[2,3] x) => (float[2,2] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Slice"), 1u);
}

TEST(EliminateNopOps, TileByOnes) {
  auto s = run("eliminate_nop_ops", "r = Constant <value = int64[2] {1, 1}> ()\n t = Tile(x, r)\n y = Relu(t)",
               "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(EliminateNopOps, ResizeThatKeepsTheSize) {
  // Scale 1 with linear half_pixel samples every element exactly; sizes equal to the input
  // with nearest too.
  auto s =
      run("eliminate_nop_ops",
          "sc = Constant <value = float[4] {1, 1, 1, 1}> ()\n r = Resize <mode = \"linear\"> (x, , sc)\n y = Relu(r)",
          "(float[1,2,3,4] x) => (float[1,2,3,4] y)");
  expect_folded(s, 1);
  auto t =
      run("eliminate_nop_ops",
          "sz = Constant <value = int64[4] {1, 2, 3, 4}> ()\n r = Resize <mode = \"cubic\"> (x, , , sz)\n y = Relu(r)",
          "(float[1,2,3,4] x) => (float[1,2,3,4] y)");
  expect_folded(t, 1);
}

TEST(EliminateNopOps, ResizeThatScalesOrCropsStays) {
  auto up =
      run("eliminate_nop_ops", "sc = Constant <value = float[4] {1, 1, 2, 2}> ()\n r = Resize (x, , sc)\n y = Relu(r)",
          "(float[1,2,3,4] x) => (float[1,2,6,8] y)");
  EXPECT_EQ(count_ops(*up.model->graph, "Resize"), 1u);
  // tf_crop_and_resize samples the region of interest even at scale 1.
  auto crop = run("eliminate_nop_ops",
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
  auto s = run("eliminate_nop_ops", "r = Relu(x)\n sh = Shape(r)\n y = Resize <mode = \"nearest\"> (r, , , sh)",
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
  auto s = run("eliminate_nop_ops", "r = Relu(x)\n y = Cast <to = 1> (r)", "(float[2,3] x) => (float[2,3] y)");
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

// ---------------------------------------------------------------- eliminate_identity_elements

struct IdentityCase {
  const char* name;
  const char* body;
};

TEST(EliminateIdentityElements, EachIdentityElement) {
  const IdentityCase cases[] = {
      {"x+0", "z = Constant <value = float[3] {0, 0, 0}> ()\n a = Add(x, z)"},
      {"0+x", "z = Constant <value = float {0}> ()\n a = Add(z, x)"},
      {"x-0", "z = Constant <value = float {0}> ()\n a = Sub(x, z)"},
      {"x*1", "o = Constant <value = float[1] {1}> ()\n a = Mul(x, o)"},
      {"1*x", "o = Constant <value = float {1}> ()\n a = Mul(o, x)"},
      {"x/1", "o = Constant <value = float {1}> ()\n a = Div(x, o)"},
      {"x**1", "o = Constant <value = float {1}> ()\n a = Pow(x, o)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto s =
        run("eliminate_identity_elements", std::string(c.body) + "\n y = Relu(a)", "(float[2,3] x) => (float[2,3] y)");
    expect_folded(s, 1);
  }
}

TEST(EliminateIdentityElements, AndTrueOrFalse) {
  auto s = run("eliminate_identity_elements",
               "t = Constant <value = bool {1}> ()\n f = Constant <value = bool {0}> ()\n a = And(x, t)\n o = Or(a, "
               "f)\n y = Not(o)",
               "(bool[4] x) => (bool[4] y)");
  expect_folded(s, 1);
}

TEST(EliminateIdentityElements, BroadcastToLargerShapeStays) {
  // x * 1 where the 1 has shape [4, 3]: the output is larger than x, the Mul must stay.
  auto s = run("eliminate_identity_elements",
               "o = Constant <value = float[4,3] {1,1,1,1,1,1,1,1,1,1,1,1}> ()\n a = Mul(x, o)\n y = Relu(a)",
               "(float[3] x) => (float[4,3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);
  expect_same_outputs(s);
}

TEST(EliminateIdentityElements, NonIdentityConstantStays) {
  auto s = run("eliminate_identity_elements", "o = Constant <value = float {2}> ()\n a = Mul(x, o)\n y = Relu(a)",
               "(float[3] x) => (float[3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);
}

TEST(EliminateIdentityElements, GraphOutput) {
  auto s = run("eliminate_identity_elements", "r = Relu(x)\n z = Constant <value = float {0}> ()\n y = Add(r, z)",
               "(float[3] x) => (float[3] y)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(EliminateIdentityElements, InsideIfBranch) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { one = Constant <value = float {1}> ()  m = Mul(x, one)  o1 = Neg(m) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                               {"infer_shapes", "eliminate_identity_elements", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Mul"), std::string::npos) << s.printed;
  expect_same_outputs(s, 4);
}

// ---------------------------------------------------------------- eliminate_idempotent_ops

TEST(EliminateIdempotentOps, EachIdempotentOp) {
  for (const char* op : {"Relu", "Ceil", "Floor", "Round", "Sign", "Abs"}) {
    SCOPED_TRACE(op);
    auto s = run("eliminate_idempotent_ops", std::string("a = ") + op + "(x)\n b = " + op + "(a)\n y = Neg(b)",
                 "(float[2,3] x) => (float[2,3] y)");
    expect_folded(s, 2);
  }
}

TEST(EliminateIdempotentOps, NegNegAndNotNot) {
  auto s = run("eliminate_idempotent_ops", "a = Neg(x)\n b = Neg(a)\n y = Relu(b)", "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
  auto t = run("eliminate_idempotent_ops", "a = Not(x)\n b = Not(a)\n y = Xor(b, x)", "(bool[4] x) => (bool[4] y)");
  expect_folded(t, 1);
}

TEST(EliminateIdempotentOps, ReciprocalPairStays) {
  // 1/(1/x) is not x in floating point (two roundings): not folded.
  auto s = run("eliminate_idempotent_ops", "a = Reciprocal(x)\n b = Reciprocal(a)\n y = Relu(b)",
               "(float[3] x) => (float[3] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reciprocal"), 2u);
}

TEST(EliminateIdempotentOps, GraphOutput) {
  auto s = run("eliminate_idempotent_ops", "a = Relu(x)\n y = Relu(a)", "(float[3] x) => (float[3] y)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(EliminateIdempotentOps, InsideIfBranch) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { a = Abs(x)  b = Abs(a)  o1 = Neg(b) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                               {"infer_shapes", "eliminate_idempotent_ops", "eliminate_dead_nodes"});
  EXPECT_EQ(count_ops(*s.model->graph->first_node()->subgraphs()[0], "Abs"), 1u) << s.printed;
  expect_same_outputs(s, 4);
}

// ---------------------------------------------------------------- fuse_consecutive_ops

TEST(FuseConsecutiveOps, TransposeTransposeCompose) {
  auto s = run("fuse_consecutive_ops",
               "a = Transpose <perm = [1, 2, 0]> (x)\n b = Transpose <perm = [0, 2, 1]> (a)\n y = Relu(b)",
               "(float[2,3,4] x) => (float[3,2,4] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, TransposeTransposeIdentityDrops) {
  auto s =
      run("fuse_consecutive_ops", "a = Transpose <perm = [1, 0]> (x)\n b = Transpose <perm = [1, 0]> (a)\n y = Relu(b)",
          "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(FuseConsecutiveOps, ReshapeReshapeLastWins) {
  auto s = run("fuse_consecutive_ops",
               "s1 = Constant <value = int64[2] {6, 4}> ()\n a = Reshape(x, s1)\n s2 = Constant <value = int64[3] {4, "
               "3, 2}> ()\n"
               " b = Reshape(a, s2)\n y = Relu(b)",
               "(float[2,3,4] x) => (float[4,3,2] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, ReshapeWithSharedIntermediateStays) {
  auto s =
      run("fuse_consecutive_ops",
          "s1 = Constant <value = int64[2] {6, 4}> ()\n a = Reshape(x, s1)\n s2 = Constant <value = int64[1] {24}> ()\n"
          " b = Reshape(a, s2)\n y = Relu(b)",
          "(float[2,3,4] x) => (float[24] y, float[6,4] a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 2u);
}

TEST(FuseConsecutiveOps, SqueezeUnsqueezeCancel) {
  auto s = run("fuse_consecutive_ops",
               "ax = Constant <value = int64[1] {1}> ()\n a = Unsqueeze(x, ax)\n b = Squeeze(a, ax)\n y = Relu(b)",
               "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(FuseConsecutiveOps, CastCastThroughWiderType) {
  // int32 -> int64 -> float: the middle type holds every int32: one Cast.
  auto s = run("fuse_consecutive_ops", "a = Cast <to = 7> (x)\n b = Cast <to = 1> (a)\n y = Relu(b)",
               "(int32[4] x) => (float[4] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Cast"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, CastCastThroughNarrowerTypeStays) {
  // float -> int32 -> float truncates: both Casts stay.
  auto s = run("fuse_consecutive_ops", "a = Cast <to = 6> (x)\n b = Cast <to = 1> (a)\n y = Relu(b)",
               "(float[4] x) => (float[4] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Cast"), 2u);
}

TEST(FuseConsecutiveOps, GraphOutput) {
  auto s = run("fuse_consecutive_ops", "a = Transpose <perm = [1, 0]> (x)\n y = Transpose <perm = [1, 0]> (a)",
               "(float[2,3] x) => (float[2,3] y)");
  // y would have to become the graph input x: kept under its name.
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, InsideLoopBody) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2,3] x) => (float[2,3] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = b (int64 i, bool c, float[2,3] acc) => (bool co, float[2,3] out) {
      co = Identity(c)
      p = Transpose <perm = [1, 0]> (acc)
      q = Transpose <perm = [1, 0]> (p)
      out = Neg(q)
    }
  >
}
)",
                               {"infer_shapes", "fuse_consecutive_ops", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Transpose"), std::string::npos) << s.printed;
}

}  // namespace
}  // namespace onnxtrim
