// eliminate_dead_nodes: unreachable nodes and unused optional outputs go, a custom node without
// outputs stays, BatchNormalization's training outputs and Attention's present pair as the spec
// allows; graph outputs stay alive; inside a Loop body.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::expect_same_outputs;
using test::simplify_text;

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

}  // namespace
}  // namespace onnxtrim
