// --target coreml: high-rank Reshape -> Transpose -> Reshape chains become rank <= 5.
#include <gtest/gtest.h>

#include "ops/registry.h"
#include "passes/shape_inference.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

test::Simplified legalize(const std::string& text) {
  test::Simplified s;
  s.model = test::parse(text);
  if (!s.model) return s;
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.target = "coreml";
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (r) s.result = r.value();
  s.printed = ir::print_graph(*s.model->graph);
  return s;
}

int64_t max_rank(const ir::Model& m) {
  passes::ShapeInference si(m);
  EXPECT_TRUE(si.run().is_ok());
  int64_t r = 0;
  m.graph->for_each_node([&](const ir::Node* n) {
    for (const ir::Value* o : n->outputs())
      if (o && si.facts(o)) r = std::max(r, si.facts(o)->rank());
  });
  return r;
}

TEST(LegalizeCoreml, RankSixChainBecomesRankFive) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[3,2] y) {
  s1 = Constant <value = int64[6] {1, 1, 2, 1, 3, 1}> ()
  a = Reshape(x, s1)
  b = Transpose <perm = [0, 1, 4, 3, 2, 5]> (a)
  s2 = Constant <value = int64[2] {3, 2}> ()
  y = Reshape(b, s2)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(LegalizeCoreml, RankFiveIsLeftAlone) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (float[4,3,2] y) {
  s1 = Constant <value = int64[5] {1, 2, 3, 4, 1}> ()
  a = Reshape(x, s1)
  b = Transpose <perm = [0, 3, 2, 1, 4]> (a)
  s2 = Constant <value = int64[3] {4, 3, 2}> ()
  y = Reshape(b, s2)
}
)");
  EXPECT_NE(s.printed.find("perm = [0, 3, 2, 1, 4]"), std::string::npos) << s.printed;
  EXPECT_TRUE(s.result.warnings.empty());
}

TEST(LegalizeCoreml, SwinWindowPartitionMatchesExactly) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,14,14,192] x) => (float[1,4,7,7,192] y) {
  s1 = Constant <value = int64[6] {1, 2, 7, 2, 7, 192}> ()
  a = Reshape(x, s1)
  b = Transpose <perm = [0, 1, 3, 2, 4, 5]> (a)
  s2 = Constant <value = int64[5] {1, 4, 7, 7, 192}> ()
  y = Reshape(b, s2)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  eval::VerifyOptions vo;
  vo.samples = 2;
  vo.rtol = 0;
  vo.atol = 0;  // data movement only: bit-exact
  auto v = eval::Verifier::create(*s.original, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  auto rep = v.value()->compare_with(*s.model);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
}

TEST(LegalizeCoreml, RankSevenTakesTheIterativePath) {
  // The reversed permutation has no consecutive axes: nothing merges, rank-4 steps instead.
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[6,72] x) => (float[432] y) {
  s1 = Constant <value = int64[7] {2, 3, 2, 3, 2, 3, 2}> ()
  a = Reshape(x, s1)
  b = Transpose <perm = [6, 5, 4, 3, 2, 1, 0]> (a)
  s2 = Constant <value = int64[1] {432}> ()
  y = Reshape(b, s2)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_GE(count_ops(*s.model->graph, "Transpose"), 7u);
  expect_same_outputs(s);
}

TEST(LegalizeCoreml, SymbolicBatchLeads) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,14,14,192] x) => (float[batch,4,7,7,192] y) {
  sh = Shape(x)
  i0 = Constant <value = int64 {0}> ()
  b = Gather <axis = 0> (sh, i0)
  ax = Constant <value = int64[1] {0}> ()
  b1 = Unsqueeze(b, ax)
  rest1 = Constant <value = int64[5] {2, 7, 2, 7, 192}> ()
  s1 = Concat <axis = 0> (b1, rest1)
  a = Reshape(x, s1)
  t = Transpose <perm = [0, 1, 3, 2, 4, 5]> (a)
  rest2 = Constant <value = int64[4] {4, 7, 7, 192}> ()
  s2 = Concat <axis = 0> (b1, rest2)
  y = Reshape(t, s2)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  expect_same_outputs(s, 2, {{"batch", 2}});
  expect_same_outputs(s, 1, {{"batch", 3}});
}

// A real export: a reduced torchvision SwinTransformer (tests/models/make_fixtures.py), whose
// window partition and reverse go through rank 6, with a dynamic batch.
TEST(LegalizeCoreml, SwinStageExportHasNoValueAboveRankFiveAndMatches) {
  auto r = onnx_io::load_model(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/swin_stage.onnx");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  test::Simplified s;
  s.model = std::move(r).value();
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.target = "coreml";
  o.strict = true;  // any value left above rank 5 fails the run
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto res = passes::simplify(*s.model, o);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_TRUE(res.value().warnings.empty()) << res.value().warnings.front();
  // Without the target the simplified graph still has rank-6 values (the test means something).
  auto plain = ir::clone_model(*s.original);
  passes::SimplifyOptions po;
  ASSERT_TRUE(passes::simplify(*plain, po).is_ok());
  EXPECT_EQ(max_rank(*plain), 6);
  EXPECT_LE(max_rank(*s.model), 5) << ir::print_graph(*s.model->graph);
  EXPECT_LT(s.model->graph->num_nodes(), s.original->graph->num_nodes());
  EXPECT_EQ(s.model->graph->inputs()[0]->type.str(), "float[batch,3,32,32]");
  expect_same_outputs(s, 2, {{"batch", 2}});
  expect_same_outputs(s, 1, {{"batch", 1}});
}

// RAFT's correlation volume: Reshape to rank 6, Div by a scalar, Reshape to rank 4.
TEST(LegalizeCoreml, ScalarDivBetweenReshapesMovesOut) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x) => (float[24,1,3,4] y) {
  s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
  a = Reshape(x, s1)
  c = Constant <value = float {4.0}> ()
  b = Div(a, c)
  s3 = Constant <value = int64[4] {24, 1, 3, 4}> ()
  y = Reshape(b, s3)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_TRUE(s.result.warnings.empty()) << s.result.warnings.front();
  EXPECT_EQ(count_ops(*s.model->graph, "Div"), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

// Several element-wise ops in a row, scalars on either side, and a final Reshape whose target
// copies a dim with 0: the merged Reshape takes its target from the known output dims.
TEST(LegalizeCoreml, ChainOfElementwiseOpsAndACopyingTarget) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x) => (float[2,72,1,2] y) {
  s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
  a = Reshape(x, s1)
  c = Constant <value = float[1] {0.5}> ()
  b = Sub(c, a)
  r = Relu(b)
  lo = Constant <value = float {0.1}> ()
  hi = Constant <value = float {0.4}> ()
  k = Clip(r, lo, hi)
  s2 = Constant <value = int64[4] {0, 72, 1, 2}> ()
  y = Reshape(k, s2)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u) << s.printed;
  expect_same_outputs(s);
}

// An operand that is not one element (a per-channel scale along a split axis) does not commute
// with the Reshape: nothing moves and the rank-6 value is reported.
TEST(LegalizeCoreml, NonScalarOperandStays) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x) => (float[24,1,3,4] y) {
  s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
  a = Reshape(x, s1)
  c = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> ()
  b = Mul(a, c)
  s3 = Constant <value = int64[4] {24, 1, 3, 4}> ()
  y = Reshape(b, s3)
}
)");
  EXPECT_EQ(max_rank(*s.model), 6) << s.printed;
  ASSERT_FALSE(s.result.warnings.empty());
  EXPECT_NE(s.result.warnings.front().find("rank 6"), std::string::npos);
  expect_same_outputs(s);
}

// The element-wise result is itself a graph output: it keeps its name (and, being rank 6 as
// declared, stays a reported rank-6 value); the other consumer path is untouched.
TEST(LegalizeCoreml, ElementwiseGraphOutputKeepsItsName) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x) => (float[2,3,4,1,3,4] b) {
  s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
  a = Reshape(x, s1)
  b = Neg(a)
}
)");
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "b");
  expect_same_outputs(s);
}

// Inside an If branch, with the scalar from the outer graph.
TEST(LegalizeCoreml, ScalarDivInsideABranch) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x, bool k, float[1] c) => (float[24,1,3,4] y) {
  y = If(k) < then_branch = t1 () => (float[24,1,3,4] o1) {
      s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
      a = Reshape(x, s1)
      b = Div(a, c)
      s3 = Constant <value = int64[4] {24, 1, 3, 4}> ()
      o1 = Reshape(b, s3)
    },
    else_branch = e1 () => (float[24,1,3,4] o2) {
      s4 = Constant <value = int64[4] {24, 1, 3, 4}> ()
      o2 = Reshape(x, s4)
    } >
}
)");
  EXPECT_TRUE(s.result.warnings.empty()) << s.result.warnings.front();
  EXPECT_EQ(s.printed.find("int64[6]"), std::string::npos) << s.printed;
  expect_same_outputs(s);
}

// RAFT's correlation volume with dynamic dims, as torch writes it: the Reshape targets are
// computed from Shapes, and a Shape reads the rank-6 value (`b, h, w, c, _, _ = corr.shape`).
// The Div moves before the first Reshape, the Shape is answered by the first target, and the
// pair merges with the second target kept dynamic (its dims are not constant but for one).
std::string raft_dynamic(const std::string& scale_type, const std::string& scale) {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[b,h,w,h,w] x) => (float[n,1,h,w] y) {
  i0 = Constant <value = int64[1] {0}> ()
  i1 = Constant <value = int64[1] {1}> ()
  i2 = Constant <value = int64[1] {2}> ()
  i3 = Constant <value = int64[1] {3}> ()
  sx = Shape(x)
  bb = Gather <axis = 0> (sx, i0)
  hh = Gather <axis = 0> (sx, i1)
  ww = Gather <axis = 0> (sx, i2)
  s1 = Concat <axis = 0> (bb, hh, ww, i1, hh, ww)
  a = Reshape(x, s1)
  c = Constant <value = )" +
         scale_type + " " + scale + R"(> ()
  q = Div(a, c)
  sq = Shape(q)
  g0 = Gather <axis = 0> (sq, i0)
  g1 = Gather <axis = 0> (sq, i1)
  g2 = Gather <axis = 0> (sq, i2)
  g3 = Gather <axis = 0> (sq, i3)
  m1 = Mul(g0, g1)
  m2 = Mul(m1, g2)
  s2 = Concat <axis = 0> (m2, g3, g1, g2)
  y = Reshape(q, s2)
}
)";
}

TEST(LegalizeCoreml, DynamicScalarDivBetweenReshapesLeavesRankFive) {
  auto s = legalize(raft_dynamic("float", "{2.0}"));
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_TRUE(s.result.warnings.empty()) << s.result.warnings.front();
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Div"), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->inputs()[0]->type.str(), "float[b,h,w,h,w]");
  expect_same_outputs(s, 2, {{"b", 2}, {"h", 3}, {"w", 4}});
  expect_same_outputs(s, 1, {{"b", 1}, {"h", 5}, {"w", 2}});
}

// The same with the two Core ML passes alone (no other pass answers the Shape first): the Shape
// of the rank-6 value becomes the first Reshape's target, which holds the same elements.
TEST(LegalizeCoreml, ShapeOfTheRankSixValueIsAnsweredByTheFirstTarget) {
  test::Simplified s;
  s.model = test::parse(raft_dynamic("float", "{2.0}"));
  ASSERT_TRUE(s.model);
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.only = {"legalize_coreml", "legalize_coreml_reshapes"};
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  s.printed = ir::print_graph(*s.model->graph);
  EXPECT_TRUE(r.value().warnings.empty()) << r.value().warnings.front();
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Shape"), 1u) << s.printed;  // Shape(x) alone
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"b", 2}, {"h", 3}, {"w", 4}});
}

// The negative case: a Div by a vector along the last axis does not commute with the Reshapes;
// nothing moves, the pair stays, the rank-6 value is reported.
TEST(LegalizeCoreml, DynamicNonScalarDivStays) {
  auto s = legalize(raft_dynamic("float[3]", "{1.0, 2.0, 4.0}"));
  EXPECT_EQ(max_rank(*s.model), 6) << s.printed;
  ASSERT_FALSE(s.result.warnings.empty());
  EXPECT_NE(s.result.warnings.front().find("rank 6"), std::string::npos);
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 2u) << s.printed;
  expect_same_outputs(s, 2, {{"b", 2}, {"h", 3}, {"w", 3}});
}

// A 0 in the second target copies a dim of the rank-6 value that x does not have at that
// position (3, where x has 12): the merged Reshape takes the known dims as its target.
TEST(LegalizeCoreml, ACopyFromTheIntermediateBecomesItsSize) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x) => (float[2,3,4,3,4] y) {
  s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
  a = Reshape(x, s1)
  s2 = Constant <value = int64[5] {2, 0, 4, 3, 4}> ()
  y = Reshape(a, s2)
}
)");
  EXPECT_LE(max_rank(*s.model), 5) << s.printed;
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u) << s.printed;
  EXPECT_NE(s.printed.find("{2, 3, 4, 3, 4}"), std::string::npos) << s.printed;
  expect_same_outputs(s);
}

// Another reader of the rank-6 value than a Shape (a graph output here): the pair stays.
TEST(LegalizeCoreml, RankSixValueWithAnotherReaderStays) {
  auto s = legalize(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,12,12] x) => (float[24,1,3,4] y, float[2,3,4,1,3,4] a) {
  s1 = Constant <value = int64[6] {2, 3, 4, 1, 3, 4}> ()
  a = Reshape(x, s1)
  s2 = Constant <value = int64[4] {24, 1, 3, 4}> ()
  y = Reshape(a, s2)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 2u) << s.printed;
  expect_same_outputs(s);
}

// tests/models/regressions/raft_rank6_dynamic.onnx (make_raft_rank6.py): torchvision RAFT's
// correlation block exported with dynamic batch, height and width (issue 29).
TEST(LegalizeCoreml, RaftDynamicExportHasNoValueAboveRankFiveAndMatches) {
  auto r = onnx_io::load_model(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/regressions/raft_rank6_dynamic.onnx");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  test::Simplified s;
  s.model = std::move(r).value();
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.target = "coreml";
  o.strict = true;  // any value left above rank 5 fails the run
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto res = passes::simplify(*s.model, o);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_TRUE(res.value().warnings.empty()) << res.value().warnings.front();
  auto plain = ir::clone_model(*s.original);
  ASSERT_TRUE(passes::simplify(*plain, passes::SimplifyOptions{}).is_ok());
  EXPECT_EQ(max_rank(*plain), 6);  // without the target the rank-6 value stays
  EXPECT_LE(max_rank(*s.model), 5) << ir::print_graph(*s.model->graph);
  EXPECT_EQ(s.model->graph->inputs()[0]->type.str(), "float[batch,3,height,width]");
  expect_same_outputs(s, 2, {{"batch", 1}, {"height", 6}, {"width", 8}});
  expect_same_outputs(s, 1, {{"batch", 2}, {"height", 4}, {"width", 6}});
}

// The element-wise ops the target hoists are declared in their own files.
TEST(LegalizeCoreml, ElementwiseOpsAreDeclaredByTheirFiles) {
  const auto& reg = ops::OpRegistry::instance();
  for (const char* op : {"Add", "Relu", "Cast", "Where", "Max", "Sum", "PRelu", "Gelu", "BitShift"})
    EXPECT_TRUE(reg.has("", op, ops::OpProperty::kElementwise)) << op;
  EXPECT_TRUE(reg.has("ai.onnx", "Mul", ops::OpProperty::kElementwise));
  for (const char* op : {"MatMul", "Transpose", "Reshape", "Softmax", "Expand", "Gather", "ReduceSum", "Unknown"})
    EXPECT_FALSE(reg.has("", op, ops::OpProperty::kElementwise)) << op;
  EXPECT_FALSE(reg.has("com.microsoft", "Add", ops::OpProperty::kElementwise));
}

}  // namespace
}  // namespace onnxtrim
