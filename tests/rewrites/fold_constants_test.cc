// fold_constants: the toy models of the seed plan with exact expectations, random ops and
// training Dropout never folded, the size guard, the known part of a symbolic shape. The cone
// policy is in folding_policy_test.cc.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::ints_of;
using test::simplify_text;

TEST(FoldConstants, TwoConstantsIntoAdd) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g () => (int64[3] y) {
  a = Constant <value = int64[3] {1, 2, 3}> ()
  b = Constant <value = int64[3] {1, 2, 3}> ()
  y = Add(a, b)
}
)");
  EXPECT_EQ(s.nodes(), 0u);
  ir::Value* y = s.model->graph->outputs()[0];
  EXPECT_EQ(y->name(), "y");
  ASSERT_TRUE(y->is_initializer());
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{2, 4, 6}));
}

TEST(FoldConstants, ScaleMulUnsqueeze) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g () => (float[1,4] y) {
  a = Constant <value = float[4] {0, 1, 2, 3}> ()
  k = Constant <value = float {2}> ()
  m = Mul(a, k)
  axes = Constant <value = int64[1] {0}> ()
  y = Unsqueeze(m, axes)
}
)");
  EXPECT_EQ(s.nodes(), 0u);
  ASSERT_TRUE(s.model->graph->outputs()[0]->is_initializer());
  const ir::Tensor& t = *s.model->graph->outputs()[0]->initializer();
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 2, 4, 6}));
}

TEST(FoldConstants, RuntimeAddSurvives) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  bias = Constant <value = float[3] {0.5, -1, 2}> ()
  y = Add(x, bias)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u);
  EXPECT_EQ(s.model->graph->initializers().size(), 1u);  // the Constant became an initializer
  expect_same_outputs(s);
}

TEST(FoldConstants, RandomOpsAndTrainingDropoutAreNeverFolded) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g () => (float[4] y, float[4] z, float[2,2] u) {
  a = Constant <value = float[4] {1, 2, 3, 4}> ()
  r = Constant <value = float {0.5}> ()
  t = Constant <value = bool {1}> ()
  y = Dropout(a, r, t)
  p = Constant <value = float[4] {0.5, 0.5, 0.5, 0.5}> ()
  z = Bernoulli(p)
  u = RandomUniform<shape = [2, 2]>()
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Dropout"), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "Bernoulli"), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "RandomUniform"), 1u);
  // In inference mode (training_mode false) the same Dropout folds away.
  auto inf = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g () => (float[4] y) {
  a = Constant <value = float[4] {1, 2, 3, 4}> ()
  r = Constant <value = float {0.5}> ()
  t = Constant <value = bool {0}> ()
  y = Dropout(a, r, t)
}
)");
  EXPECT_EQ(inf.nodes(), 0u);
}

TEST(FoldConstants, ModelWithoutConstantsIsUntouched) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[2,3] z) => (float[2,3] y) {
  a = Add(x, z)
  y = Mul(a, x)
}
)";
  auto s = simplify_text(text, {"fold_constants"});
  auto original = test::parse(text);
  EXPECT_EQ(s.printed, ir::print_graph(*original->graph));
  EXPECT_EQ(s.result.passes[0].changes, 0);
}

TEST(FoldConstants, PositionIdsFromRange) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g () => (int64[1,512] ids) {
  start = Constant <value = int64 {0}> ()
  limit = Constant <value = int64 {512}> ()
  delta = Constant <value = int64 {1}> ()
  r = Range(start, limit, delta)
  axes = Constant <value = int64[1] {0}> ()
  ids = Unsqueeze(r, axes)
}
)");
  EXPECT_EQ(s.nodes(), 0u);
  ASSERT_TRUE(s.model->graph->outputs()[0]->is_initializer());
  const ir::Tensor& t = *s.model->graph->outputs()[0]->initializer();
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{1, 512}));
  auto v = ops::to_int64_vector(t);
  for (int64_t i = 0; i < 512; ++i) ASSERT_EQ(v[static_cast<size_t>(i)], i);
}

TEST(FoldConstants, SizeGuardKeepsLargeSplats) {
  // ConstantOfShape([4096]) would be 16 KiB of ones made from an 8-byte shape: folding leaves
  // it a generator; the default pipeline makes it a scalar operand instead
  // (eliminate_splat_broadcast). Neither stores 16 KiB.
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4096] x) => (float[4096] y) {
  shape = Constant <value = int64[1] {4096}> ()
  z = ConstantOfShape <value = float[1] {1}> (shape)
  y = Add(x, z)
}
)";
  auto s = simplify_text(text, {"fold_constants"});
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape"), 1u);
  expect_same_outputs(s);
  auto all = simplify_text(text);
  EXPECT_EQ(count_ops(*all.model->graph, "ConstantOfShape"), 0u);
  EXPECT_EQ(all.nodes(), 1u);
  for (const ir::Value* v : all.model->graph->initializers()) EXPECT_LE(v->initializer()->byte_size(), 8u);
  expect_same_outputs(all);
}

TEST(FoldConstants, NeverFoldsRandomOps) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g () => (float[2] y) {
  y = RandomUniform <shape = [2]> ()
}
)",
                         {"fold_constants"});
  EXPECT_EQ(s.nodes(), 1u);
}

TEST(FoldConstants, ShapeOfStaticInputFolds) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[6] y) {
  shape = Shape(x)
  n = ReduceProd <keepdims = 1> (shape)
  y = Reshape(x, n)
}
)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u);
  expect_same_outputs(s);
}

TEST(FoldConstants, KnownPartOfASymbolicShapeFolds) {
  // Shape(x)[1] and Shape(x)[1:] of x: [batch, 768] are constants; Shape(x)[0] is not.
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,768] x) => (int64 h, int64[1] tail, int64 b) {
  s = Shape(x)
  one = Constant <value = int64 {1}> ()
  zero = Constant <value = int64 {0}> ()
  h = Gather <axis = 0> (s, one)
  st = Constant <value = int64[1] {1}> ()
  en = Constant <value = int64[1] {2}> ()
  tail = Slice(s, st, en)
  b = Gather <axis = 0> (s, zero)
}
)");
  const auto& outs = s.model->graph->outputs();
  ASSERT_TRUE(outs[0]->is_initializer());
  EXPECT_EQ(ops::to_int64_vector(*outs[0]->initializer()), (std::vector<int64_t>{768}));
  ASSERT_TRUE(outs[1]->is_initializer());
  EXPECT_EQ(ops::to_int64_vector(*outs[1]->initializer()), (std::vector<int64_t>{768}));
  EXPECT_FALSE(outs[2]->is_initializer());  // batch stays dynamic
  expect_same_outputs(s, 2, {{"batch", 3}});
}

TEST(FoldConstants, SizeOfStaticInputFolds) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (int64 n) {
  n = Size(x)
}
)");
  ASSERT_TRUE(s.model->graph->outputs()[0]->is_initializer());
  EXPECT_EQ(ops::to_int64_vector(*s.model->graph->outputs()[0]->initializer()), (std::vector<int64_t>{24}));
}

}  // namespace
}  // namespace onnxtrim
