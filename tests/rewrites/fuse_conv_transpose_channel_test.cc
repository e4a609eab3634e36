// fuse_conv_add and fuse_conv_mul on ConvTranspose (issue 28): a per-output-channel Add goes into
// the bias, a Mul into the weights, whose layout is [C_in, M/group, k...] (the scale on axis 1,
// per group); refusals, a graph-output ConvTranspose output, a case inside an If branch.
#include <gtest/gtest.h>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::run;

std::string values(int64_t n, double step) {
  std::string s;
  for (int64_t i = 0; i < n; ++i) {
    double v = static_cast<double>((i * 7) % 11) * step - 0.5;
    s += (i ? ", " : "") + std::to_string(v);
  }
  return s;
}

// x [1, 4, 3, 3]; w [4, M/group, 2, 2]; c per output channel [1, M, 1, 1]; bias [M].
std::string model(int64_t group, const std::string& body, const std::string& outs = "", const std::string& extra = "") {
  const int64_t per = group == 1 ? 3 : 2;
  const int64_t m = group * per;
  const std::string M = std::to_string(m);
  return R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4,3,3] x) => (float[1,)" +
         M + ",4,4] y" + outs + R"()
<float[4,)" +
         std::to_string(per) + ",2,2] w = {" + values(4 * per * 4, 0.125) + "}, float[1," + M + ",1,1] c = {" +
         values(m, 0.75) + "}, float[" + M + "] b = {" + values(m, 0.25) + "}, float[1,1,1,4] row = {1, 2, 3, 4}" +
         extra +
         R"(>
{
)" + body +
         "\n}\n";
}

std::vector<float> floats(const ir::Value* v) {
  const ir::Tensor* t = ops::FoldContext::constant(v);
  return t ? t->to_vector<float>() : std::vector<float>{};
}

TEST(FuseConvTransposeChannel, AddGoesIntoTheBias) {
  auto s = run(model(1, "t = ConvTranspose(x, w)\n a = Add(t, c)\n y = Relu(a)"), "fuse_conv_add");
  ASSERT_EQ(s.nodes(), 2u) << s.printed;
  const ir::Node* ct = s.model->graph->first_node();
  ASSERT_EQ(ct->op_type, "ConvTranspose");
  // No bias before: the bias is c.
  EXPECT_EQ(floats(ct->input(2)), floats(s.original->graph->find_value("c")));
  expect_same_outputs(s);
  // With a bias and group 2: B + c.
  auto g = run(model(2, "t = ConvTranspose <group = 2> (x, w, b)\n a = Add(c, t)\n y = Relu(a)"), "fuse_conv_add");
  ASSERT_EQ(g.nodes(), 2u) << g.printed;
  std::vector<float> b = floats(g.original->graph->find_value("b")), c = floats(g.original->graph->find_value("c"));
  std::vector<float> want(b.size());
  for (size_t i = 0; i < b.size(); ++i) want[i] = b[i] + c[i];
  EXPECT_EQ(floats(g.model->graph->first_node()->input(2)), want);
  expect_same_outputs(g);
}

TEST(FuseConvTransposeChannel, MulScalesTheWeightsPerGroup) {
  // group 2, M = 4: w [4, 2, 2, 2]; input channels 0-1 are group 0 (output channels 0-1), 2-3
  // group 1 (output channels 2-3).
  auto s = run(model(2, "t = ConvTranspose <group = 2> (x, w, b)\n a = Mul(t, c)\n y = Relu(a)"), "fuse_conv_mul");
  ASSERT_EQ(s.nodes(), 2u) << s.printed;
  const ir::Node* ct = s.model->graph->first_node();
  ASSERT_EQ(ct->op_type, "ConvTranspose");
  std::vector<float> w = floats(s.original->graph->find_value("w")), c = floats(s.original->graph->find_value("c"));
  std::vector<float> b = floats(s.original->graph->find_value("b"));
  std::vector<float> want(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    size_t cin = i / 8, j = (i / 4) % 2, group = cin / 2;
    want[i] = static_cast<float>(static_cast<double>(w[i]) * c[group * 2 + j]);
  }
  EXPECT_EQ(floats(ct->input(1)), want);
  std::vector<float> wb(b.size());
  for (size_t i = 0; i < b.size(); ++i) wb[i] = static_cast<float>(static_cast<double>(b[i]) * c[i]);
  EXPECT_EQ(floats(ct->input(2)), wb);
  expect_same_outputs(s);
  // group 1, M = 3: w [4, 3, 2, 2], the scale on axis 1.
  auto one = run(model(1, "t = ConvTranspose(x, w)\n a = Mul(c, t)\n y = Relu(a)"), "fuse_conv_mul");
  ASSERT_EQ(one.nodes(), 2u) << one.printed;
  expect_same_outputs(one);
}

TEST(FuseConvTransposeChannel, Refusals) {
  // A constant along the last axis, not the channels.
  auto row = run(model(1, "t = ConvTranspose(x, w)\n a = Mul(t, row)\n y = Relu(a)"), "fuse_conv_mul");
  EXPECT_EQ(count_ops(*row.model->graph, "Mul"), 1u) << row.printed;
  auto row_add = run(model(1, "t = ConvTranspose(x, w)\n a = Add(t, row)\n y = Relu(a)"), "fuse_conv_add");
  EXPECT_EQ(count_ops(*row_add.model->graph, "Add"), 1u) << row_add.printed;
  // The ConvTranspose output read elsewhere too.
  auto shared = run(model(1, "t = ConvTranspose(x, w)\n a = Add(t, c)\n y = Mul(a, t)"), "fuse_conv_add");
  EXPECT_EQ(count_ops(*shared.model->graph, "Add"), 1u) << shared.printed;
  expect_same_outputs(shared);
}

TEST(FuseConvTransposeChannel, GraphOutputIntermediateStays) {
  auto s =
      run(model(1, "t = ConvTranspose(x, w)\n a = Mul(t, c)\n y = Relu(a)", ", float[1,3,4,4] t"), "fuse_conv_mul");
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 1u) << s.printed;
  expect_same_outputs(s);
  // The Add's output a graph output: fires, the name is kept.
  auto o = run(model(1, "t = ConvTranspose(x, w, b)\n y = Add(t, c)"), "fuse_conv_add");
  ASSERT_EQ(o.nodes(), 1u) << o.printed;
  EXPECT_EQ(o.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(o);
}

TEST(FuseConvTransposeChannel, InsideIfBranch) {
  auto s = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[1,2,3,3] x) => (float[1,4,4,4] y)
<float[2,2,2,2] w = {)" + values(16, 0.125) +
                                   R"(}, float[1,4,1,1] c = {0.5, -2, 3, 0.25}>
{
  y = If(k) <
    then_branch = t1 () => (float[1,4,4,4] o1) { p = ConvTranspose <group = 2> (x, w)  q = Mul(p, c)  r = Add(q, c)  o1 = Relu(r) },
    else_branch = t2 () => (float[1,4,4,4] o2) { p2 = ConvTranspose <group = 2> (x, w)  o2 = Neg(p2) }
  >
}
)",
                               {"infer_shapes", "fuse_conv_add", "fuse_conv_mul", "eliminate_dead_nodes"});
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_EQ(iff->op_type, "If");
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 2u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Mul"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Add"), 0u) << s.printed;
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
