// fuse_conv_bn: Conv then BatchNormalization is one Conv; a shared Conv output stays; a graph
// output keeps its name; the three Conv fusions inside an If branch.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::expect_same_outputs_loop;
using test::fuse;

TEST(FuseConvBn, ConvThenBatchNormIsOneConv) {
  auto s = fuse("fuse_conv_bn",
                "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n n = BatchNormalization(y0, s, bb, mu, var)\n y = Relu(n)");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseConvBn, SharedConvOutputStays) {
  auto s =
      fuse("fuse_conv_bn",
           "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n n = BatchNormalization(y0, s, bb, mu, var)\n y = Add(n, y0)");
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 1u);
}

TEST(FuseConvBn, GraphOutputKeepsItsName) {
  auto s =
      fuse("fuse_conv_bn", "y0 = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n y = BatchNormalization(y0, s, bb, mu, var)");
  EXPECT_EQ(s.nodes(), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(Fusions, InsideIfBranch) {
  auto s =
      test::simplify_text(std::string(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[2,3,5,5] x) => (float[2,4,5,5] y)
<float[4,3,1,1] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2}, float[4,1,1] c = {1.5, -2, 0.5, 3},
 float[4] s = {1, 2, 0.5, 1.5}, float[4] bb = {0.1, 0, -0.2, 0.3}, float[4] mu = {0.2, -0.1, 0, 0.1}, float[4] var = {1, 0.5, 2, 1.5}>
{
  y = If(k) <
    then_branch = t1 () => (float[2,4,5,5] o1) { p = Conv(x, w)  q = Mul(p, c)  r = Add(q, c)  o1 = Relu(r) },
    else_branch = t2 () => (float[2,4,5,5] o2) { p2 = Conv(x, w)  n2 = BatchNormalization(p2, s, bb, mu, var)  o2 = Neg(n2) }
  >
}
)"),
                          {"infer_shapes", "fuse_conv_bn", "fuse_conv_add", "fuse_conv_mul", "eliminate_dead_nodes"});
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 2u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[1]->num_nodes(), 2u) << s.printed;
  expect_same_outputs(s, 4);
}

// The default pipeline on the ResNet fixture: every BatchNormalization goes into its Conv.
TEST(FuseConvBn, ResNetExportLosesEveryBatchNorm) {
  auto m = onnx_io::load_model(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/resnet_small.onnx");
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  test::Simplified s;
  s.model = std::move(m).value();
  s.original = ir::clone_model(*s.model);
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 9u);
  passes::SimplifyOptions o;
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(count_ops(*s.model->graph, "BatchNormalization"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "Conv"), 9u);
  expect_same_outputs(s, 2, {{"batch", 2}});
}

}  // namespace
}  // namespace onnxtrim
