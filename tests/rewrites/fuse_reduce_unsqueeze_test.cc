// fuse_reduce_unsqueeze: Unsqueeze(Reduce*(x, keepdims = 0)) of the reduced axes becomes the
// reduction with keepdims = 1 (issue 28), with axes as attributes or inputs as each op's opset
// has them; refusals (other axes, keepdims already 1, a shared reduction), a graph-output
// reduction, and a case inside an If branch.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

const std::vector<std::string> kReducePasses = {"infer_shapes", "fuse_reduce_unsqueeze", "eliminate_dead_nodes",
                                                "eliminate_unused_initializers"};

test::Simplified run_reduce(int64_t opset, const std::string& out_shape, const std::string& body,
                            const std::string& outs = "") {
  return test::simplify_text(R"(<ir_version: 8, opset_import: ["" : )" + std::to_string(opset) + R"(]>
g (float[2,3,4] x) => (float[)" + out_shape +
                                 "] y" + outs + R"() {
)" + body + "\n}\n",
                             kReducePasses);
}

const ir::Node* find(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  g.for_each_node([&](const ir::Node* n) {
    if (!found && n->op_type == op) found = n;
  });
  return found;
}

TEST(FuseReduceUnsqueeze, ReduceSumAxesInputsBecomesKeepdims) {
  auto s = run_reduce(13, "2,1,4", R"(
  a = Constant <value = int64[1] {1}> ()
  r = ReduceSum <keepdims = 0> (x, a)
  u = Unsqueeze(r, a)
  y = Relu(u))");
  ASSERT_EQ(s.nodes(), 3u) << s.printed;  // the axes' Constant, the ReduceSum, the Relu
  EXPECT_EQ(count_ops(*s.model->graph, "Unsqueeze"), 0u);
  const ir::Node* r = find(*s.model->graph, "ReduceSum");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attr_int("keepdims", 0), 1);
  expect_same_outputs(s);
  // Exact values: x = 0..23, sums over axis 1 of each [3] column.
  eval::Interpreter interp(*s.model);
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3, 4}, x))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.dims(), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(), (std::vector<float>{12, 15, 18, 21, 48, 51, 54, 57}));
}

TEST(FuseReduceUnsqueeze, AttributeAxesAndOtherReductions) {
  // ReduceMean-13 (axes attribute) with negative axes, Unsqueeze-13 (axes input) in another order.
  auto mean = run_reduce(13, "1,3,1", R"(
  r = ReduceMean <axes = [-1, 0], keepdims = 0> (x)
  a = Constant <value = int64[2] {2, -3}> ()
  u = Unsqueeze(r, a)
  y = Relu(u))");
  ASSERT_EQ(mean.nodes(), 2u) << mean.printed;
  EXPECT_EQ(find(*mean.model->graph, "ReduceMean")->attr_int("keepdims", 0), 1);
  expect_same_outputs(mean);
  // ReduceMax-18 (axes input), the output a graph output: its name is kept.
  auto mx = run_reduce(18, "2,3,1", R"(
  a = Constant <value = int64[1] {2}> ()
  r = ReduceMax <keepdims = 0> (x, a)
  y = Unsqueeze(r, a))");
  ASSERT_EQ(mx.nodes(), 2u) << mx.printed;
  EXPECT_EQ(count_ops(*mx.model->graph, "ReduceMax"), 1u);
  EXPECT_EQ(mx.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(mx);
  // Opset 11: both as attributes; ReduceL2 of every axis (no axes) and an Unsqueeze of all three.
  auto all = run_reduce(11, "1,1,1", R"(
  r = ReduceL2 <keepdims = 0> (x)
  u = Unsqueeze <axes = [0, 1, 2]> (r)
  y = Relu(u))");
  ASSERT_EQ(all.nodes(), 2u) << all.printed;
  EXPECT_EQ(find(*all.model->graph, "ReduceL2")->attr_int("keepdims", 0), 1);
  expect_same_outputs(all);
}

TEST(FuseReduceUnsqueeze, Refusals) {
  // The Unsqueeze puts the dim elsewhere: [2, 4] -> [1, 2, 4], not [2, 1, 4].
  auto other = run_reduce(13, "1,2,4", R"(
  a = Constant <value = int64[1] {1}> ()
  z = Constant <value = int64[1] {0}> ()
  r = ReduceSum <keepdims = 0> (x, a)
  u = Unsqueeze(r, z)
  y = Relu(u))");
  EXPECT_EQ(count_ops(*other.model->graph, "Unsqueeze"), 1u) << other.printed;
  expect_same_outputs(other);
  // keepdims = 1 already (the default): the Unsqueeze adds a dim.
  auto kept = run_reduce(13, "2,1,1,4", R"(
  a = Constant <value = int64[1] {1}> ()
  r = ReduceSum(x, a)
  u = Unsqueeze(r, a)
  y = Relu(u))");
  EXPECT_EQ(count_ops(*kept.model->graph, "Unsqueeze"), 1u) << kept.printed;
  // Two axes reduced, one put back.
  auto fewer = run_reduce(18, "2,1", R"(
  a = Constant <value = int64[2] {1, 2}> ()
  b = Constant <value = int64[1] {1}> ()
  r = ReduceMin <keepdims = 0> (x, a)
  u = Unsqueeze(r, b)
  y = Relu(u))");
  EXPECT_EQ(count_ops(*fewer.model->graph, "Unsqueeze"), 1u) << fewer.printed;
  expect_same_outputs(fewer);
  // The reduction read elsewhere too.
  auto shared = run_reduce(13, "2,1,4", R"(
  a = Constant <value = int64[1] {1}> ()
  r = ReduceSum <keepdims = 0> (x, a)
  u = Unsqueeze(r, a)
  n = Neg(r)
  y = Add(u, n))");
  EXPECT_EQ(count_ops(*shared.model->graph, "Unsqueeze"), 1u) << shared.printed;
  expect_same_outputs(shared);
}

TEST(FuseReduceUnsqueeze, GraphOutputReductionStays) {
  auto s = run_reduce(13, "2,1,4", R"(
  a = Constant <value = int64[1] {1}> ()
  r = ReduceSum <keepdims = 0> (x, a)
  y = Unsqueeze(r, a))",
                      ", float[2,4] r");
  EXPECT_EQ(count_ops(*s.model->graph, "Unsqueeze"), 1u) << s.printed;
  EXPECT_EQ(find(*s.model->graph, "ReduceSum")->attr_int("keepdims", 1), 0);
  expect_same_outputs(s);
}

TEST(FuseReduceUnsqueeze, InsideIfBranch) {
  auto s = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 18]>
g (bool c, float[2,3,4] x) => (float[2,3,1] y) {
  y = If(c) <
    then_branch = t () => (float[2,3,1] o) {
      a = Constant <value = int64[1] {-1}> ()
      r = ReduceSumSquare <keepdims = 0> (x, a)
      o = Unsqueeze(r, a)
    },
    else_branch = e () => (float[2,3,1] o2) {
      b = Constant <value = int64[1] {2}> ()
      o2 = ReduceMax(x, b)
    }
  >
}
)",
                               kReducePasses);
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_EQ(iff->op_type, "If");
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Unsqueeze"), 0u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 2u) << s.printed;  // the axes and the reduction
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
