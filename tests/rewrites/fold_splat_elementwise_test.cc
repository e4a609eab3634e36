// fold_splat_elementwise: an elementwise op over splats, one of them generated, becomes a
// ConstantOfShape of the op's value. Positive (exact values), must not fire, graph output,
// subgraph, and the whole pipeline on a splat too large for fold_constants to evaluate.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

const std::vector<std::string> kSplatPasses = {"fold_splat_elementwise", "eliminate_splat_broadcast",
                                               "eliminate_dead_nodes", "eliminate_unused_initializers"};

const ir::Node* first_op(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  g.for_each_node([&](const ir::Node* n) {
    if (!found && n->op_type == op) found = n;
  });
  return found;
}

// The one value a ConstantOfShape repeats.
template <typename T>
T generator_value(const ir::Node* n) {
  const ir::Attribute* a = n->attr("value");
  EXPECT_TRUE(a && a->t && a->t->numel() == 1);
  return a->t->to_vector<T>()[0];
}

TEST(FoldSplatElementwise, ChainOverAGeneratorEndsAsOneScalarOperand) {
  // x + ((g * 3) - 0.5) with g = ConstantOfShape(2, 3) of 2: the chain becomes one
  // generator of 5.5, which eliminate_splat_broadcast makes a scalar operand of the Add.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  sh = Constant <value = int64[2] {2, 3}> ()
  gen = ConstantOfShape <value = float[1] {2}> (sh)
  three = Constant <value = float {3}> ()
  half = Constant <value = float[1] {0.5}> ()
  m = Mul(gen, three)
  d = Sub(m, half)
  y = Add(x, d)
}
)",
                         kSplatPasses);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* add = first_op(*s.model->graph, "Add");
  ASSERT_TRUE(add);
  const ir::Tensor* c = ops::FoldContext::constant(add->input(1));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank(), 0);
  EXPECT_EQ(c->to_vector<float>(), std::vector<float>{5.5f});
  expect_same_outputs(s);
}

TEST(FoldSplatElementwise, CastAndComparisonTakeTheirKernelsTypes) {
  // Cast(gen of 2.7 -> int32) truncates to 2; Less(2, 3) is true everywhere.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int32[4] x) => (bool[4] y, int32[4] z) {
  sh = Constant <value = int64[1] {4}> ()
  gen = ConstantOfShape <value = float[1] {2.7}> (sh)
  c = Cast <to = 6> (gen)
  three = Constant <value = int32 {3}> ()
  y = Less(c, three)
  z = Add(x, c)
}
)",
                         kSplatPasses);
  const ir::Node* gy = s.model->graph->outputs()[0]->producer();
  ASSERT_TRUE(gy);
  EXPECT_EQ(gy->op_type, "ConstantOfShape");
  EXPECT_EQ(generator_value<uint8_t>(gy), 1u);  // bool, one byte
  const ir::Node* add = first_op(*s.model->graph, "Add");
  ASSERT_TRUE(add);
  EXPECT_EQ(ops::FoldContext::constant(add->input(1))->to_vector<int32_t>(), std::vector<int32_t>{2});
  expect_same_outputs(s);
}

TEST(FoldSplatElementwise, DoesNotFireWithoutSplatsOrAGeneratorOrAStaticShape) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[n] v) => (float[2,3] a, float[2,3] b, float[n] c) {
  sh = Constant <value = int64[2] {2, 3}> ()
  gen = ConstantOfShape <value = float[1] {2}> (sh)
  a = Mul(gen, x)
  st = Constant <value = float[2,3] {1, 1, 1, 1, 1, 1}> ()
  one = Constant <value = float {1}> ()
  b = Add(st, one)
  vs = Shape(v)
  dyn = ConstantOfShape <value = float[1] {4}> (vs)
  c = Sqrt(dyn)
}
)",
                         {"fold_splat_elementwise"});
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u);   // x is no splat
  EXPECT_EQ(count_ops(*s.model->graph, "Add"), 1u);   // stored constants only: folding's business
  EXPECT_EQ(count_ops(*s.model->graph, "Sqrt"), 1u);  // its shape is n
  expect_same_outputs(s, 2, {{"n", 5}});
}

TEST(FoldSplatElementwise, GraphOutputKeepsItsNameAndValue) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[3,4] y, float[2] z) {
  sh = Constant <value = int64[2] {3, 4}> ()
  gen = ConstantOfShape <value = float[1] {-8}> (sh)
  y = Abs(gen)
  z = Identity(x)
}
)",
                         {"fold_splat_elementwise", "eliminate_dead_nodes"});
  const ir::Value* y = s.model->graph->outputs()[0];
  EXPECT_EQ(y->name(), "y");
  ASSERT_TRUE(y->producer());
  EXPECT_EQ(y->producer()->op_type, "ConstantOfShape");
  EXPECT_EQ(generator_value<float>(y->producer()), 8.0f);
  EXPECT_EQ(ops::to_int64_vector(*ops::FoldContext::constant(y->producer()->input(0))), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(count_ops(*s.model->graph, "Abs"), 0u);
  EXPECT_TRUE(ir::verify_for_write(*s.model).is_ok());
  expect_same_outputs(s);
}

TEST(FoldSplatElementwise, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[2,3] x) => (float[2,3] y) {
  y = If(k) <then_branch = t () => (float[2,3] o) {
      sh = Constant <value = int64[2] {2, 3}> ()
      gen = ConstantOfShape <value = float[1] {4}> (sh)
      r = Sqrt(gen)
      o = Mul(x, r)
    }, else_branch = e () => (float[2,3] o2) {
      o2 = Neg(x)
    }>
}
)",
                         kSplatPasses);
  const ir::Node* iff = first_op(*s.model->graph, "If");
  ASSERT_TRUE(iff);
  const ir::Graph& then_g = *iff->subgraphs()[0];
  EXPECT_EQ(count_ops(then_g, "Sqrt"), 0u);
  EXPECT_EQ(count_ops(then_g, "ConstantOfShape"), 0u);
  const ir::Node* mul = first_op(then_g, "Mul");
  ASSERT_TRUE(mul);
  EXPECT_EQ(ops::FoldContext::constant(mul->input(1))->to_vector<float>(), std::vector<float>{2.0f});
  EXPECT_TRUE(ir::verify_for_write(*s.model).is_ok());
  expect_same_outputs(s);
}

TEST(FoldSplatElementwise, WholePipelineOnASplatPastTheFoldCap) {
  // onnxsim's "larger than 2 GB" test in small: x + (w + w + w) with w an 80 MB splat, past
  // what fold_constants evaluates (64 MB). It ends as one Add of a scalar.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[20971520] x) => (float[20971520] y) {
  sh = Constant <value = int64[1] {20971520}> ()
  w = ConstantOfShape <value = float[1] {1}> (sh)
  a = Add(w, w)
  b = Add(a, w)
  y = Add(x, b)
}
)");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* add = first_op(*s.model->graph, "Add");
  ASSERT_TRUE(add);
  const ir::Tensor* c = ops::FoldContext::constant(add->input(1));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->to_vector<float>(), std::vector<float>{3.0f});
  expect_same_outputs(s, 1);
}

}  // namespace
}  // namespace onnxtrim
