// Unit tests of the reduce family: reductions over the empty set of axes
// (noop_with_empty_axes=1 with no axes) keep every element-wise step of the op (issue 12, F1).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../rewrites/rewrite_test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;
using test::run;
using test::vals;

// One Reduce* node over x with noop_with_empty_axes=1, axes absent (form "absent") or an empty
// int64 input (form "empty"), at the given opset.
std::string noop_model(const std::string& op, int opset, const std::string& type, const std::string& form) {
  std::string axes = form == "empty" ? "ax = Constant <value = int64[0] {}> ()\n  " : "";
  std::string args = form == "empty" ? "(x, ax)" : "(x)";
  return "<ir_version: 9, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng (" + type + "[2,2] x) => (" + type +
         "[2,2] y) {\n  " + axes + "y = " + op + " <noop_with_empty_axes = 1, keepdims = 0> " + args + "\n}\n";
}

TEST(ReduceEmptySet, CompositeReductionsKeepTheirElementwiseStep) {
  ir::Tensor x = make_tensor<float>({2, 2}, {-1.5f, 2, 0.5f, -3});
  ir::Tensor pos = make_tensor<float>({2, 2}, {1, 4, 0.5f, 8});
  for (const char* form : {"absent", "empty"}) {
    SCOPED_TRACE(form);
    EXPECT_EQ(vals<float>(run(noop_model("ReduceL1", 18, "float", form), {{"x", x}})),
              (std::vector<float>{1.5f, 2, 0.5f, 3}));
    EXPECT_EQ(vals<float>(run(noop_model("ReduceL2", 18, "float", form), {{"x", x}})),
              (std::vector<float>{1.5f, 2, 0.5f, 3}));
    EXPECT_EQ(vals<float>(run(noop_model("ReduceSumSquare", 18, "float", form), {{"x", x}})),
              (std::vector<float>{2.25f, 4, 0.25f, 9}));
    EXPECT_EQ(vals<float>(run(noop_model("ReduceLogSum", 18, "float", form), {{"x", pos}})),
              (std::vector<float>{0, static_cast<float>(std::log(4.0)), static_cast<float>(std::log(0.5)),
                                  static_cast<float>(std::log(8.0))}));
    // Identity reductions stay the identity.
    for (const char* op : {"ReduceLogSumExp", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd"})
      EXPECT_EQ(vals<float>(run(noop_model(op, 18, "float", form), {{"x", x}})),
                (std::vector<float>{-1.5f, 2, 0.5f, -3}))
          << op;
  }
  // ReduceSum takes its axes as an input from opset 13.
  EXPECT_EQ(vals<float>(run(noop_model("ReduceSum", 13, "float", "absent"), {{"x", x}})),
            (std::vector<float>{-1.5f, 2, 0.5f, -3}));
}

TEST(ReduceEmptySet, IntegerTypes) {
  ir::Tensor x = make_tensor<int64_t>({2, 2}, {-3, 2, 0, -7});
  EXPECT_EQ(vals<int64_t>(run(noop_model("ReduceSumSquare", 18, "int64", "absent"), {{"x", x}})),
            (std::vector<int64_t>{9, 4, 0, 49}));
  EXPECT_EQ(vals<int64_t>(run(noop_model("ReduceL1", 18, "int64", "empty"), {{"x", x}})),
            (std::vector<int64_t>{3, 2, 0, 7}));
  const int64_t big = (int64_t{1} << 60) + 1;  // beyond double precision: exact
  EXPECT_EQ(vals<int64_t>(run(noop_model("ReduceSum", 18, "int64", "absent"),
                              {{"x", make_tensor<int64_t>({2, 2}, {big, 1, 2, -big})}})),
            (std::vector<int64_t>{big, 1, 2, -big}));
}

TEST(ReduceEmptySet, WithoutNoopEveryAxisIsReduced) {
  // The other branch of the same attribute: no axes and noop_with_empty_axes=0 reduce everything.
  auto r = run(R"(<ir_version: 9, opset_import: ["" : 18]>
g (float[2,2] x) => (float[] y) { y = ReduceL2 <keepdims = 0> (x) })",
               {{"x", make_tensor<float>({2, 2}, {3, 0, 0, -4})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{5}));
}

TEST(ReduceEmptySet, FoldedConstantKeepsTheStep) {
  // ReduceL2[noop_with_empty_axes=1](Constant [-1.5, 2, 0.5, -3]) folds to [1.5, 2, 0.5, 3].
  auto s = test::simplify_text(R"(<ir_version: 9, opset_import: ["" : 18]>
g (float[4] x) => (float[4] y) {
  c = Constant <value = float[4] {-1.5, 2, 0.5, -3}> ()
  r = ReduceL2 <noop_with_empty_axes = 1> (c)
  y = Add(x, r)
})",
                               {"infer_shapes", "fold_constants", "eliminate_dead_nodes"});
  ASSERT_TRUE(s.model);
  const ir::Value* r = s.model->graph->first_node()->input(1);
  ASSERT_TRUE(r && r->is_initializer()) << s.printed;
  EXPECT_EQ(r->initializer()->to_vector<float>(), (std::vector<float>{1.5f, 2, 0.5f, 3}));
  test::expect_same_outputs(s);
}

ir::Tensor true_scalar() {
  ir::Tensor t(ir::DataType::kBool, {});
  t.mutable_bytes()[0] = 1;
  return t;
}

TEST(ReduceEmptySet, InsideAnIfBranchAndAsGraphOutput) {
  auto r = run(R"(<ir_version: 9, opset_import: ["" : 18]>
g (bool k, float[3] x) => (float[3] y) {
  y = If(k) < then_branch = t1 () => (float[3] o1) { o1 = ReduceSumSquare <noop_with_empty_axes = 1> (x) },
              else_branch = t2 () => (float[3] o2) { o2 = ReduceL1 <noop_with_empty_axes = 1> (x) } >
})",
               {{"k", true_scalar()}, {"x", make_tensor<float>({3}, {-2, 0.5f, 3})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{4, 0.25f, 9}));
}

// ------------------------------------------------------------------ bool reductions

TEST(ReduceBool, MaxIsAnyMinIsAll) {
  ir::Tensor x(ir::DataType::kBool, {2, 2});
  x.mutable_bytes()[0] = 1;  // [[1, 0], [0, 0]]
  const char* text = R"(<ir_version: 8, opset_import: ["" : 20]>
g (bool[2,2] x, int64[1] a) => (bool[2] y) { y = OP<keepdims = 0>(x, a) })";
  std::string mx = text, mn = text;
  mx.replace(mx.find("OP"), 2, "ReduceMax");
  mn.replace(mn.find("OP"), 2, "ReduceMin");
  auto a = make_tensor<int64_t>({1}, {1});
  EXPECT_EQ(vals<uint8_t>(run(mx, {{"x", x}, {"a", a}})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(vals<uint8_t>(run(mn, {{"x", x}, {"a", a}})), (std::vector<uint8_t>{0, 0}));
}

}  // namespace
}  // namespace onnxtrim
