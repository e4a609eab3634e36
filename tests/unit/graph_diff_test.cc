// --graph-diff (driver/report.h diff_graphs): what a change of the main graph is reported as.
#include <gtest/gtest.h>

#include "driver/report.h"
#include "ir/clone.h"
#include "ops/kernel_util.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

const char* kGraphDiffModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Identity(x)
  b = Relu(a)
  y = Add(b, b)
}
)";

TEST(GraphDiff, UnchangedModelKeepsEveryNode) {
  auto m = test::parse(kGraphDiffModel);
  ASSERT_TRUE(m);
  GraphDiff d = diff_graphs(*m, *m);
  EXPECT_TRUE(d.ran);
  EXPECT_EQ(d.kept, 3);
  EXPECT_TRUE(d.removed.empty());
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.ops.empty());
  EXPECT_TRUE(d.inputs.empty());
  EXPECT_TRUE(d.outputs.empty());
}

TEST(GraphDiff, RemovedAddedAndMatchedByInputs) {
  auto before = test::parse(kGraphDiffModel);
  // The Identity is gone (Relu reads x), the unnamed Relu matches by op and inputs only after
  // that change; Add became Mul with a new initializer.
  auto after = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  b = Relu(x)
  two = Constant<value = float[1] {2}>()
  y = Mul(b, two)
}
)");
  ASSERT_TRUE(before && after);
  test::set_weight(*after, "two", ops::make_tensor<float>({1}, {2}));
  GraphDiff d = diff_graphs(*before, *after);
  // Relu reads x now: no name, other inputs, so it counts as removed and added.
  EXPECT_EQ(d.kept, 0);
  ASSERT_EQ(d.removed.size(), 3u);
  EXPECT_EQ(d.removed[0].op, "Identity");
  EXPECT_EQ(d.removed[0].outputs, (std::vector<std::string>{"a"}));
  EXPECT_EQ(d.removed[2].op, "Add");
  ASSERT_EQ(d.added.size(), 2u);
  EXPECT_EQ(d.added[1].op, "Mul");
  ASSERT_EQ(d.ops.size(), 3u);  // Add 1 -> 0, Identity 1 -> 0, Mul 0 -> 1 (Relu unchanged)
  EXPECT_EQ(d.ops[0].op, "Add");
  EXPECT_EQ(d.ops[0].before, 1);
  EXPECT_EQ(d.ops[0].after, 0);
  EXPECT_EQ(d.ops[2].op, "Mul");
  EXPECT_EQ(d.ops[2].after, 1);
  ASSERT_EQ(d.initializers_added.size(), 1u);
  EXPECT_EQ(d.initializers_added[0].name, "two");
  EXPECT_EQ(d.initializers_added[0].bytes_after, 4);
  EXPECT_EQ(d.initializers_added[0].bytes_before, -1);
  EXPECT_TRUE(d.inputs.empty());
  EXPECT_TRUE(d.outputs.empty());
}

TEST(GraphDiff, NamedNodesMatchByNameAndInitializersAndInterfaceChanges) {
  auto before = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,3] x) => (float[N,3] y) {
  w = Constant<value = float[3] {1, 2, 3}>()
  y = Mul(x, w)
}
)");
  auto after = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] x) => (float[4,3] y, float[4,3] z) {
  w = Constant<value = float[3] {1, 2, 3}>()
  y = Mul(x, w)
  z = Neg(y)
}
)");
  ASSERT_TRUE(before && after);
  test::set_weight(*before, "w", ops::make_tensor<float>({3}, {1, 2, 3}));
  test::set_weight(*after, "w", ops::make_tensor<float>({3}, {1, 2, 4}));
  before->graph->node_list()[0]->name = "scale";
  after->graph->node_list()[0]->name = "scale";
  GraphDiff d = diff_graphs(*before, *after);
  EXPECT_EQ(d.kept, 1);
  EXPECT_TRUE(d.removed.empty());
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0].op, "Neg");
  ASSERT_EQ(d.initializers_changed.size(), 1u);
  EXPECT_EQ(d.initializers_changed[0].name, "w");
  EXPECT_EQ(d.initializers_changed[0].bytes_before, 12);
  EXPECT_EQ(d.initializers_changed[0].bytes_after, 12);
  EXPECT_EQ(d.inputs, (std::vector<std::string>{"x: float[N,3] -> float[4,3]"}));
  EXPECT_EQ(d.outputs, (std::vector<std::string>{"y: float[N,3] -> float[4,3]", "added z"}));
  ASSERT_GE(d.values.size(), 1u);
  EXPECT_EQ(d.values[0].name, "x");
}

TEST(GraphDiff, TextCapsLongLists) {
  Report r;
  r.graph_diff.ran = true;
  for (int i = 0; i < 11; ++i)
    r.graph_diff.removed.push_back({"n" + std::to_string(i), "Identity", {"v" + std::to_string(i)}});
  std::string t = r.to_text();
  EXPECT_NE(t.find("graph diff (main graph): 0 nodes kept, 11 removed, 0 added"), std::string::npos) << t;
  EXPECT_NE(t.find("removed (11): Identity 'n0' -> v0;"), std::string::npos) << t;
  EXPECT_NE(t.find("; ... 3 more"), std::string::npos) << t;
  EXPECT_EQ(t.find("'n8'"), std::string::npos) << t;
  EXPECT_NE(r.to_json().find("\"graph_diff\""), std::string::npos);
}

}  // namespace
}  // namespace onnxtrim
