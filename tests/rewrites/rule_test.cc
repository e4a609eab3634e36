// The rewrite contract (passes/rule.h): the driver applies a rule at each node of its root types
// as it matches, and explain() says, per rule rooted at a node's op type, whether it fires and
// why not.
#include <gtest/gtest.h>

#include "onnxtrim/onnxtrim.hpp"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::parse;

std::string result_of(const std::vector<std::pair<std::string, std::string>>& lines, const std::string& rule) {
  for (const auto& [r, why] : lines)
    if (r == rule) return why;
  return "(not listed)";
}

TEST(RewriteRule, ExplainSaysWhyEachRuleRootedThereDoesNotFire) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float lo, float[2,1] z) => (float[2,3] y, float[2,5] w, float[2,3] v) {
  c = Clip(x, lo)
  y = Relu(c)
  a = Constant <value = float[2,1] {1, 1}> ()
  w = Concat <axis = 1> (x, a, z)
  k = Clip(x)
  v = Relu(k)
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyOptions o;
  // Relu(Clip(x, lo)) with lo an input: a bound that is not a constant.
  auto y = passes::explain(*m, "y", o);
  EXPECT_EQ(result_of(y, "fuse_relu_clip"), "a Clip bound is not a constant scalar");
  // Concat of x, a splat and z: two inputs that are not splats.
  auto w = passes::explain(*m, "w", o);
  EXPECT_EQ(result_of(w, "fuse_concat_splat"), "more than one input is not a splat");
  // Relu(Clip(x)) fits; explain applies nothing.
  auto v = passes::explain(*m, "v", o);
  EXPECT_EQ(result_of(v, "fuse_relu_clip"), "fires");
  EXPECT_EQ(m->graph->num_nodes(), 6u);
  // By a node's own name too; a name nothing has; an op no rule is rooted at.
  m->graph->find_value("w")->producer()->name = "concat_node";
  EXPECT_EQ(result_of(passes::explain(*m, "concat_node", o), "fuse_concat_splat"),
            "more than one input is not a splat");
  auto none = passes::explain(*m, "nothing", o);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].second.find("no node of the result is named 'nothing'"), std::string::npos) << none[0].second;
  auto constant = passes::explain(*m, "a", o);
  ASSERT_EQ(constant.size(), 1u);
  EXPECT_EQ(constant[0].second, "no rewrite is rooted at Constant");
}

TEST(RewriteRule, ExplainInsideASubgraph) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool b, float[2] x) => (float[2] y) {
  y = If(b) <then_branch = t () => (float[2] o) { k = Clip(x)  o = Relu(k) },
             else_branch = e () => (float[2] o2) { o2 = Neg(x) }>
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyOptions o;
  EXPECT_EQ(result_of(passes::explain(*m, "o", o), "fuse_relu_clip"), "fires");
}

// The public option: the report carries the same lines, in text and JSON.
TEST(RewriteRule, ExplainOption) {
  Model m = Model::parse_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float lo) => (float[2,3] y) {
  c = Clip(x, lo)
  y = Relu(c)
}
)");
  Options o;
  o.set("explain", "y");
  Report r = simplify(m, o);
  ASSERT_EQ(r.explain_node, "y");
  EXPECT_EQ(result_of(r.explain, "fuse_relu_clip"), "a Clip bound is not a constant scalar");
  // The section lists every rule rooted at a Relu (fold_splat_elementwise too), in pipeline order.
  const std::string text = r.to_text();
  const size_t section = text.find("explain 'y':\n");
  ASSERT_NE(section, std::string::npos) << text;
  EXPECT_NE(text.find("\n  fuse_relu_clip: a Clip bound is not a constant scalar\n", section), std::string::npos)
      << text;
  const std::string json = r.to_json();
  EXPECT_NE(json.find("\"explain\": {"), std::string::npos) << json;
  EXPECT_NE(json.find("\"result\": \"a Clip bound is not a constant scalar\""), std::string::npos) << json;
  // Without the option the report has no such section.
  Model m2 =
      Model::parse_text("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => (float[2] y) { y = Relu(x) }");
  Report r2 = simplify(m2);
  EXPECT_EQ(r2.to_json().find("explain"), std::string::npos);
}

// fuse_matmul_add, fuse_matmul_bn and simplify_shape_chains are rules: --explain gives their
// reasons at an Add, a BatchNormalization, a Reshape and an Expand.
TEST(RewriteRule, ExplainTheMatmulAndShapeRules) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[4] b, float[2,3,3] x3, float[2,3] y3) => (float[2,4] ya, float[2,4] yb, float[2,4] yc, float[2,3,4] yd, float[2,4] ye, float[3,2] r, float[2,3] e) {
  w = Constant <value = float[3,4] {1,2,3,4,5,6,7,8,9,10,11,12}> ()
  bias = Constant <value = float[4] {1,1,1,1}> ()
  p1 = MatMul(x, w)
  ya = Add(p1, bias)
  p2 = MatMul(x, w)
  yb = Add(b, p2)
  p3 = MatMul(x, w)
  yc = Add(p3, bias)
  keep = Identity(p3)
  p4 = MatMul(x3, w)
  yd = Add(p4, bias)
  sc = Constant <value = float[4] {1,1,1,1}> ()
  mu = Constant <value = float[4] {0,0,0,0}> ()
  p5 = MatMul(x, w)
  ye = BatchNormalization(p5, sc, b, mu, sc)
  s = Shape(x)
  i1 = Constant <value = int64 {1}> ()
  i0 = Constant <value = int64 {0}> ()
  ax = Constant <value = int64[1] {0}> ()
  d0 = Gather <axis = 0> (s, i1)
  d1 = Gather <axis = 0> (s, i0)
  u0 = Unsqueeze(d0, ax)
  u1 = Unsqueeze(d1, ax)
  t = Concat <axis = 0> (u0, u1)
  r = Reshape(x, t)
  es = Shape(y3)
  e2 = Expand(x, es)
  e = Relu(e2)
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyOptions o;
  EXPECT_EQ(result_of(passes::explain(*m, "ya", o), "fuse_matmul_add"), "fires");
  EXPECT_EQ(result_of(passes::explain(*m, "yb", o), "fuse_matmul_add"), "the bias is neither a constant nor a splat");
  EXPECT_EQ(result_of(passes::explain(*m, "yc", o), "fuse_matmul_add"),
            "the MatMul has other readers or is a graph output");
  EXPECT_EQ(result_of(passes::explain(*m, "yd", o), "fuse_matmul_add"),
            "the MatMul's input is not 2-D (MatMul+Add is kept for other ranks)");
  EXPECT_EQ(result_of(passes::explain(*m, "ye", o), "fuse_matmul_bn"),
            "a scale, bias, mean or variance is not a constant");
  // [2,3] -> [3,2] through Shape/Gather/Concat: the target becomes the constant [3, 2].
  EXPECT_EQ(result_of(passes::explain(*m, "r", o), "simplify_shape_chains"), "fires")
      << ::testing::PrintToString(passes::explain(*m, "r", o));
  // Expand of x [2,3] to y3's shape [2,3]: it does nothing.
  EXPECT_EQ(result_of(passes::explain(*m, "e2", o), "simplify_shape_chains"), "fires");
  EXPECT_EQ(m->graph->find_value("r")->producer()->input(1)->name(), "t");  // explain applies nothing
}

}  // namespace
}  // namespace onnxtrim
