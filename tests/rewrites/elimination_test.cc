// Golden tests of the graph-level elimination passes: a positive case with exact node counts
// and outputs, a case where the pass must not fire, a graph-output case and a subgraph case.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

// ---------------------------------------------------------------- eliminate_identity

TEST(EliminateIdentity, RemovesChains) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Identity(x)
  b = Identity(a)
  c = Relu(b)
  y = Neg(c)
}
)",
                         {"eliminate_identity", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed,
            "g (float[2,3] x) => (float[2,3] y)\n"
            "{\n"
            "  c = Relu (x)\n"
            "  y = Neg (c)\n"
            "}\n");
  expect_same_outputs(s);
}

TEST(EliminateIdentity, KeepsIdentityFromInputToOutput) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Identity(x)
}
)",
                         {"eliminate_identity"});
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->inputs()[0]->name(), "x");
}

TEST(EliminateIdentity, GraphOutputKeepsItsName) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  r = Relu(x)
  y = Identity(r)
}
)",
                         {"eliminate_identity"});
  EXPECT_EQ(s.printed,
            "g (float[2] x) => (float[2] y)\n"
            "{\n"
            "  y = Relu (x)\n"
            "}\n");
  expect_same_outputs(s);
}

TEST(EliminateIdentity, InsideIfBranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { i1 = Identity(x)  o1 = Neg(i1) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                         {"eliminate_identity"});
  EXPECT_EQ(count_ops(*s.model->graph->first_node()->subgraphs()[0], "Identity"), 0u);
  EXPECT_EQ(s.printed.find("Identity"), std::string::npos) << s.printed;
  expect_same_outputs(s, 4);
}

// ---------------------------------------------------------------- eliminate_dead_nodes

TEST(EliminateDeadNodes, RemovesUnreachableChains) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  d1 = Exp(x)
  d2 = Log(d1)
  y = Relu(x)
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.result.passes[0].nodes_removed, 2);
  expect_same_outputs(s);
}

TEST(EliminateDeadNodes, KeepsCustomNodeWithoutOutputs) {
  // The text syntax cannot write a node without outputs: parse one with an output, then drop it.
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
g (float[2] x) => (float[2] y) {
  unused = com.example.Print(x)
  y = Relu(x)
}
)");
  ASSERT_TRUE(m);
  ir::Graph& g = *m->graph;
  ir::Value* unused = g.find_value("unused");
  ir::Node* print = unused->producer();
  g.set_node_output(print, 0, nullptr);
  g.trim_trailing_empty_outputs(print);
  g.erase_value(unused);
  passes::SimplifyOptions o;
  o.only = {"eliminate_dead_nodes"};
  o.verify_ir = true;
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  EXPECT_EQ(g.num_nodes(), 2u);
}

TEST(EliminateDeadNodes, RemovesUnusedCustomNodeWithOutputs) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
g (float[2] x) => (float[2] y) {
  unused = com.example.Thing(x)
  y = Relu(x)
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.nodes(), 1u);
}

TEST(EliminateDeadNodes, DropsUnusedOptionalOutput) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y, mask = Dropout(x)
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.printed,
            "g (float[2] x) => (float[2] y)\n"
            "{\n"
            "  y = Dropout (x)\n"
            "}\n");
}

// Outputs whose count selects the op's mode stay (issue 12, F2).
TEST(EliminateDeadNodes, TrainingBatchNormKeepsItsStatistics) {
  // training_mode=1 (opset 15) requires running_mean and running_var even when unread.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[3,2] x) => (float[3,2] y)
<float[2] sc = {1, 2}, float[2] b = {0.5, -1}, float[2] mu = {0, 0}, float[2] var = {1, 1}> {
  y, rm, rv = BatchNormalization <training_mode = 1> (x, sc, b, mu, var)
}
)",
                         {"eliminate_dead_nodes"});
  ASSERT_EQ(s.model->graph->first_node()->num_outputs(), 3u) << s.printed;
  EXPECT_TRUE(s.model->graph->first_node()->output(1) && s.model->graph->first_node()->output(2)) << s.printed;
  expect_same_outputs(s);
}

TEST(EliminateDeadNodes, BatchNormOutputCountIsItsModeBeforeOpset14) {
  // Opset 9: the statistics outputs are what puts the node in training mode (batch
  // statistics); dropping them would change y.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 9]>
g (float[3,2] x) => (float[3,2] y)
<float[2] sc = {1, 2}, float[2] b = {0.5, -1}, float[2] mu = {5, -5}, float[2] var = {4, 9}> {
  y, rm, rv = BatchNormalization (x, sc, b, mu, var)
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.model->graph->first_node()->num_outputs(), 3u) << s.printed;
  expect_same_outputs(s);
}

TEST(EliminateDeadNodes, InferenceBatchNormLosesInvalidStatistics) {
  // training_mode=0: extra outputs are invalid per the spec; unread, they go.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[3,2] x) => (float[3,2] y)
<float[2] sc = {1, 2}, float[2] b = {0.5, -1}, float[2] mu = {0, 0}, float[2] var = {1, 1}> {
  y, rm, rv = BatchNormalization (x, sc, b, mu, var)
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.model->graph->first_node()->num_outputs(), 1u) << s.printed;
}

TEST(EliminateDeadNodes, TrainingBatchNormInsideIfBranchAndAsGraphOutput) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (bool k, float[3,2] x) => (float[3,2] y, float[2] m)
<float[2] sc = {1, 2}, float[2] b = {0.5, -1}, float[2] mu = {0, 0}, float[2] var = {1, 1}> {
  t, m, v = BatchNormalization <training_mode = 1> (x, sc, b, mu, var)
  y = If(k) < then_branch = t1 () => (float[3,2] o1) { o1, r1, r2 = BatchNormalization <training_mode = 1> (t, sc, b, mu, var) },
              else_branch = t2 () => (float[3,2] o2) { o2 = Neg(t) } >
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.model->graph->first_node()->num_outputs(), 3u) << s.printed;
  const ir::Node* iff = nullptr;
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "If") iff = n;
  });
  ASSERT_TRUE(iff);
  EXPECT_EQ(iff->subgraphs()[0]->first_node()->num_outputs(), 3u) << s.printed;
  expect_same_outputs(s, 4);
}

TEST(EliminateDeadNodes, AttentionPresentPairOnlyWithoutPast) {
  const char* head = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[1,1,2,2] q, float[1,1,2,2] k, float[1,1,2,2] v, float[1,1,1,2] pk, float[1,1,1,2] pv) => (float[1,1,2,2] y) {
)";
  // No past: the unread present_key/present_value pair and qk output go.
  auto a = simplify_text(std::string(head) + "  y, p1, p2, qk = Attention(q, k, v)\n}\n", {"eliminate_dead_nodes"});
  EXPECT_EQ(a.model->graph->first_node()->num_outputs(), 1u) << a.printed;
  expect_same_outputs(a);
  // With past_key/past_value, present_key/present_value are used together with them: they stay.
  auto b = simplify_text(std::string(head) + "  y, p1, p2, qk = Attention(q, k, v, , pk, pv)\n}\n",
                         {"eliminate_dead_nodes"});
  ASSERT_EQ(b.model->graph->first_node()->num_outputs(), 3u) << b.printed;
  expect_same_outputs(b);
}

TEST(EliminateDeadNodes, GraphOutputsStayAlive) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y, float[2] z) {
  y = Relu(x)
  z = Neg(y)
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.nodes(), 2u);
}

TEST(EliminateDeadNodes, InsideLoopBody) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2] x) => (float[2] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) {
      dead = Exp(acc)
      co = Identity(c)
      out = Neg(acc)
    }
  >
}
)",
                         {"eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Exp"), std::string::npos) << s.printed;
  EXPECT_NE(s.printed.find("Neg"), std::string::npos);
}

// ---------------------------------------------------------------- eliminate_common_subexpressions

TEST(EliminateCommonSubexpressions, MergesEqualNodes) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Transpose <perm = [0, 1]> (x)
  b = Transpose <perm = [0, 1]> (x)
  y = Add(a, b)
}
)",
                         {"eliminate_common_subexpressions", "eliminate_dead_nodes"});
  EXPECT_EQ(s.nodes(), 2u);
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u);
  expect_same_outputs(s);
}

TEST(EliminateCommonSubexpressions, DifferentAttributesOrRandomOpsStay) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
  a = LeakyRelu <alpha = 0.1> (x)
  b = LeakyRelu <alpha = 0.2> (x)
  r1 = RandomUniformLike(x)
  r2 = RandomUniformLike(x)
  y = Add(a, b)
  z = Sub(r1, r2)
}
)",
                         {"eliminate_common_subexpressions"});
  EXPECT_EQ(s.nodes(), 6u);
}

TEST(EliminateCommonSubexpressions, TwoGraphOutputsAreNotMerged) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y, float[2] z) {
  y = Relu(x)
  z = Relu(x)
}
)",
                         {"eliminate_common_subexpressions"});
  EXPECT_EQ(s.nodes(), 2u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "z");
}

TEST(EliminateCommonSubexpressions, InsideIfBranch) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { p = Exp(x)  q = Exp(x)  o1 = Add(p, q) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                         {"eliminate_common_subexpressions", "eliminate_dead_nodes"});
  EXPECT_EQ(count_ops(*s.model->graph->first_node()->subgraphs()[0], "Exp"), 1u);
  expect_same_outputs(s, 4);
}

// ---------------------------------------------------------------- eliminate_duplicate_constants

TEST(EliminateDuplicateConstants, MergesEqualInitializersAndConstants) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y)
<float[3] w1 = {1, 2, 3}, float[3] w2 = {1, 2, 3}>
{
  c = Constant <value = float[3] {1, 2, 3}> ()
  a = Add(x, w1)
  b = Mul(a, w2)
  y = Sub(b, c)
}
)",
                         {"eliminate_duplicate_constants", "eliminate_dead_nodes"});
  EXPECT_EQ(s.model->graph->initializers().size(), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "Constant"), 0u);
  expect_same_outputs(s);
}

TEST(EliminateDuplicateConstants, SameBytesDifferentTypeStay) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int32[2] x, float[2] z) => (int32[2] y, float[2] w)
<int32[2] a = {0, 0}, float[2] b = {0, 0}>
{
  y = Add(x, a)
  w = Add(z, b)
}
)",
                         {"eliminate_duplicate_constants"});
  EXPECT_EQ(s.model->graph->initializers().size(), 2u);
}

TEST(EliminateDuplicateConstants, TrainingStatisticsAreNotShared) {
  // BatchNormalization in training mode updates its running variance (ONNX Runtime in place):
  // the variance {1, 2} must not become the same tensor as the scale {1, 2}; the equal bias and
  // the Add's constant still merge.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[3,2] x) => (float[3,2] y)
<float[2] sc = {1, 2}, float[2] b = {0.5, -1}, float[2] mu = {0.1, 0}, float[2] var = {1, 2}, float[2] c = {0.5, -1}>
{
  t, rm, rv = BatchNormalization <training_mode = 1> (x, sc, b, mu, var)
  y = Add(t, c)
}
)",
                         {"eliminate_duplicate_constants"});
  EXPECT_EQ(s.model->graph->initializers().size(), 4u);
  const ir::Node* bn = nullptr;
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "BatchNormalization") bn = n;
  });
  ASSERT_NE(bn, nullptr);
  EXPECT_NE(bn->input(1), bn->input(4));
  EXPECT_EQ(bn->input(4)->name(), "var");
  expect_same_outputs(s);
}

TEST(EliminateDuplicateConstants, GraphInputDefaultsStay) {
  // An initializer that is also a graph input can be overridden by the caller: keep it.
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, float[2] w1) => (float[2] y)
<float[2] w1 = {1, 2}, float[2] w2 = {1, 2}>
{
  a = Add(x, w1)
  y = Mul(a, w2)
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyOptions o;
  o.only = {"eliminate_duplicate_constants"};
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  EXPECT_EQ(m->graph->initializers().size(), 2u);
}

// ---------------------------------------------------------------- unused initializers / value_info

TEST(EliminateUnusedInitializers, DropsOnlyUnreadOnes) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y)
<float[2] used = {1, 2}, float[2] unused = {3, 4}>
{
  y = Add(x, used)
}
)",
                         {"eliminate_unused_initializers"});
  ASSERT_EQ(s.model->graph->initializers().size(), 1u);
  EXPECT_EQ(s.model->graph->initializers()[0]->name(), "used");
}

TEST(Pipeline, DefaultPipelineIsDeterministic) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Identity(x)
  b = Relu(a)
  c = Relu(a)
  d = Add(b, c)
  y = Identity(d)
}
)";
  auto s1 = simplify_text(text);
  auto s2 = simplify_text(text);
  EXPECT_EQ(s1.printed, s2.printed);
  auto b1 = onnx_io::serialize_model(*s1.model);
  auto b2 = onnx_io::serialize_model(*s2.model);
  ASSERT_TRUE(b1.is_ok() && b2.is_ok());
  EXPECT_EQ(b1.value(), b2.value());
  EXPECT_TRUE(s1.result.converged);
  expect_same_outputs(s1);
}

}  // namespace
}  // namespace onnxtrim
