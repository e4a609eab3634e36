// inline_constant_if: an If of a constant condition is its branch (nested, inside a Loop, with
// outer values); a condition not constant stays; one branch value for two graph outputs stays.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

TEST(InlineConstantIf, NestedIfInsideLoopWithOuterValues) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2] x, float[2] w) => (float[2] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) {
      flag = Constant <value = bool {1}> ()
      co = Identity(c)
      out = If(flag) <
        then_branch = t1 () => (float[2] o1) { o1 = Add(acc, w) },
        else_branch = t2 () => (float[2] o2) { o2 = Sub(acc, x) }
      >
    }
  >
}
)");
  EXPECT_EQ(s.printed.find("If"), std::string::npos) << s.printed;
  test::expect_same_outputs_loop(s);
}

TEST(InlineConstantIf, NonConstantConditionStays) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { o1 = Neg(x) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(x) }
  >
}
)",
                         {"inline_constant_if"});
  EXPECT_EQ(count_ops(*s.model->graph, "If"), 1u);
}

TEST(InlineConstantIf, OneBranchValueForTwoGraphOutputsStays) {
  // The taken branch gives t for both outputs, y1 and y2, both graph outputs: one value cannot
  // keep both names, so the If stays (it used to be erased with y2 still a graph output, which
  // the next purge freed). With y2 read only inside the graph, the If goes.
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y1, float[2] y2) {
  k = Constant <value = bool {1}> ()
  y1, y2 = If(k) <
    then_branch = t1 () => (float[2] t, float[2] t) { t = Relu(x) },
    else_branch = t2 () => (float[2] c, float[2] d) { c = Neg(x)  d = Abs(x) }
  >
}
)";
  auto s = simplify_text(text, {"inline_constant_if"});
  const ir::Graph& g = *s.model->graph;
  EXPECT_EQ(count_ops(g, "If"), 1u);
  EXPECT_EQ(g.outputs()[0]->name(), "y1");
  EXPECT_EQ(g.outputs()[1]->name(), "y2");
  EXPECT_TRUE(ir::verify_for_write(*s.model).is_ok());
  expect_same_outputs(s);

  auto inner = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y1, float[2] z) {
  k = Constant <value = bool {1}> ()
  y1, y2 = If(k) <
    then_branch = t1 () => (float[2] t, float[2] t) { t = Relu(x) },
    else_branch = t2 () => (float[2] c, float[2] d) { c = Neg(x)  d = Abs(x) }
  >
  z = Add(y1, y2)
}
)",
                             {"inline_constant_if"});
  EXPECT_EQ(count_ops(*inner.model->graph, "If"), 0u);
  EXPECT_EQ(count_ops(*inner.model->graph, "Relu"), 1u);
  expect_same_outputs(inner);
}

}  // namespace
}  // namespace onnxtrim
