// fuse_relu_clip: Clip(Relu(x)) and Relu(Clip(x)) are one Clip; a positive case with exact
// values, a graph output with the attribute form, cases where it must not fire, a Loop body.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::find_op;
using test::simplify_text;

TEST(FuseReluClip, ClipOfReluIsOneClip) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y) {
  r = Relu(x)
  lo = Constant <value = float {-1}> ()
  hi = Constant <value = float {0.25}> ()
  y = Clip(r, lo, hi)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  const ir::Node* clip = find_op(*s.model->graph, "Clip");
  ASSERT_TRUE(clip);
  EXPECT_EQ(clip->input(0)->name(), "x");
  EXPECT_EQ(ops::FoldContext::constant(clip->input(1))->to_vector<float>(), std::vector<float>{0.0f});
  EXPECT_EQ(ops::FoldContext::constant(clip->input(2))->to_vector<float>(), std::vector<float>{0.25f});
  expect_same_outputs(s);
}

TEST(FuseReluClip, ReluOfClipAsGraphOutputWithAttributes) {
  // Opset 10: bounds are attributes; Relu(Clip(x, -2, -1)) is 0 everywhere, Clip(x, 0, 0).
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 10]>
g (float[6] x) => (float[6] y) {
  c = Clip <min = -2.0, max = -1.0> (x)
  y = Relu(c)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  const ir::Node* clip = find_op(*s.model->graph, "Clip");
  ASSERT_TRUE(clip);
  EXPECT_EQ(clip->attr_float("min", -1), 0.0f);
  EXPECT_EQ(clip->attr_float("max", -1), 0.0f);
  EXPECT_EQ(clip->output(0)->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseReluClip, SharedReluOrUnknownBoundStays) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, float hi) => (float[4] y, float[4] r, float[4] z) {
  r = Relu(x)
  lo = Constant <value = float {0}> ()
  six = Constant <value = float {6}> ()
  y = Clip(r, lo, six)
  q = Relu(x)
  z = Clip(q, lo, hi)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Relu"), 1u);  // the two Relu merge; it is an output
  EXPECT_EQ(count_ops(*s.model->graph, "Clip"), 2u);
  expect_same_outputs(s);
}

TEST(FuseReluClip, InsideALoopBody) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, int64 n) => (float[4] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <body = b (int64 i, bool c, float[4] acc) => (bool co, float[4] out) {
      co = Identity(c)
      one = Constant <value = float {1}> ()
      d = Sub(acc, one)
      r = Relu(d)
      hi = Constant <value = float {20}> ()
      out = Clip(r, , hi)
    }>
}
)");
  const ir::Node* loop = find_op(*s.model->graph, "Loop");
  ASSERT_TRUE(loop);
  EXPECT_EQ(count_ops(*loop->subgraphs()[0], "Relu"), 0u);
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
