// --inline-functions (ir/inline_functions.h): exact values after inlining, and the inlined model
// against the original (the evaluator runs the calls) on random inputs.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ir/clone.h"
#include "ir/inline_functions.h"
#include "ir/verifier.h"
#include "ops/kernel_util.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;

std::vector<float> inline_test_run(const ir::Model& m, const std::map<std::string, ir::Tensor>& feeds, size_t out = 0) {
  eval::Interpreter interp(m);
  std::map<std::string, RuntimeValue> f;
  for (const auto& [k, v] : feeds) f[k] = RuntimeValue::of(v);
  auto r = interp.run(f);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r.is_ok()) return {};
  return r.value()[out].tensor.to_vector<float>();
}

size_t inline_test_count(const ir::Graph& g, const std::string& op) {
  size_t n = 0;
  g.for_each_node([&](const ir::Node* x) {
    n += x->op_type == op;
    for (const ir::Graph* sg : x->subgraphs()) n += inline_test_count(*sg, op);
  });
  return n;
}

// Inlines a copy of `text`'s model; checks it is valid and no call is left; then compares the
// first output with the original's on `samples` random inputs of shape `shape` for each input.
std::unique_ptr<ir::Model> inline_and_compare(const std::string& text, const std::vector<int64_t>& shape,
                                              std::map<std::string, ir::Tensor> fixed = {}) {
  auto orig = test::parse(text);
  if (!orig) return nullptr;
  auto m = ir::clone_model(*orig);
  auto res = ir::inline_functions(*m);
  EXPECT_TRUE(res.is_ok()) << (res.is_ok() ? "" : res.status().message());
  if (!res.is_ok()) return nullptr;
  EXPECT_TRUE(ir::verify_model(*m).is_ok()) << ir::verify_model(*m).message();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3, 3);
  for (int s = 0; s < 3; ++s) {
    std::map<std::string, ir::Tensor> feeds = fixed;
    for (const ir::Value* in : orig->graph->inputs()) {
      if (feeds.count(in->name())) continue;
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      std::vector<float> v(static_cast<size_t>(n));
      for (float& x : v) x = u(rng);
      feeds[in->name()] = ops::make_tensor<float>(shape, v);
    }
    for (size_t o = 0; o < orig->graph->outputs().size(); ++o)
      EXPECT_EQ(inline_test_run(*orig, feeds, o), inline_test_run(*m, feeds, o)) << "sample " << s << " output " << o;
  }
  return m;
}

TEST(InlineFunctions, BodyReplacesTheCallWithExactValues) {
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[3] x) => (float[3] y) {
  t = local.AddMul(x, x)
  y = Neg(t)
}
<domain: "local", opset_import: ["" : 18]>
AddMul (a, b) => (c) {
  s = Add(a, b)
  c = Mul(s, a)
}
)";
  auto m = inline_and_compare(text, {3});
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->functions.empty());
  EXPECT_EQ(inline_test_count(*m->graph, "AddMul"), 0u);
  EXPECT_EQ(inline_test_count(*m->graph, "Add"), 1u);
  EXPECT_EQ(inline_test_count(*m->graph, "Mul"), 1u);
  // The call's output keeps its name: Neg still reads "t".
  ir::Value* t = m->graph->find_value("t");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(t->producer(), nullptr);
  EXPECT_EQ(t->producer()->op_type, "Mul");
  // (x + x) * x, negated.
  EXPECT_EQ(inline_test_run(*m, {{"x", ops::make_tensor<float>({3}, {1, 2, -3})}}), (std::vector<float>{-2, -8, -18}));
}

TEST(InlineFunctions, TwoCallsGetFreshNames) {
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) {
  a = local.Sq(x)
  y = local.Sq(a)
}
<domain: "local", opset_import: ["" : 18]>
Sq (u) => (v) {
  v = Mul(u, u)
}
)";
  auto m = inline_and_compare(text, {2});
  ASSERT_TRUE(m);
  EXPECT_EQ(inline_test_count(*m->graph, "Mul"), 2u);
  EXPECT_EQ(inline_test_run(*m, {{"x", ops::make_tensor<float>({2}, {2, -3})}}), (std::vector<float>{16, 81}));
  // The graph output is still "y", made by the second Mul.
  ASSERT_EQ(m->graph->outputs().size(), 1u);
  EXPECT_EQ(m->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(m->graph->outputs()[0]->producer()->op_type, "Mul");
}

TEST(InlineFunctions, AttributeReferenceTakesTheCallsValueOrTheDefault) {
  // Scale's k: 3 given by the first call; the second call gives none, so the default 0.5 holds.
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y, float[2] z) {
  y = local.Scale<k = 3.0>(x)
  z = local.Scale(x)
}
<domain: "local", opset_import: ["" : 18]>
Scale <k> (x) => (y) {
  c = Constant<value_float: float = @k>()
  y = Mul(x, c)
}
)";
  // The text syntax has no attribute defaults: k's (FunctionProto.attribute_proto) is set here.
  auto orig = test::parse(text);
  ASSERT_TRUE(orig);
  ir::Attribute k;
  k.name = "k";
  k.type = ir::AttrType::kFloat;
  k.f = 0.5f;
  orig->functions.at(0).attribute_defaults.push_back(k);
  auto m = ir::clone_model(*orig);
  auto res = ir::inline_functions(*m);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
  EXPECT_EQ(res.value().calls, 2);
  std::map<std::string, ir::Tensor> f{{"x", ops::make_tensor<float>({2}, {1, -4})}};
  EXPECT_EQ(inline_test_run(*m, f, 0), (std::vector<float>{3, -12}));
  EXPECT_EQ(inline_test_run(*m, f, 1), (std::vector<float>{0.5f, -2}));
  EXPECT_EQ(inline_test_run(*orig, f, 0), (std::vector<float>{3, -12}));
  EXPECT_EQ(inline_test_run(*orig, f, 1), (std::vector<float>{0.5f, -2}));
  // No attribute reference is left anywhere.
  m->graph->for_each_node([](const ir::Node* n) {
    for (const ir::Attribute& a : n->attributes) EXPECT_TRUE(a.ref_attr_name.empty()) << n->describe();
  });
}

TEST(InlineFunctions, NestedCallsAndPassThroughOutputs) {
  // Outer calls Inner and also returns its own input unchanged (an output that is an input:
  // an Identity keeps the call's name).
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y, float[2] same) {
  y, same = local.Outer(x)
}
<domain: "local", opset_import: ["" : 18, "local" : 1]>
Inner (a) => (b) {
  b = Relu(a)
}
<domain: "local", opset_import: ["" : 18, "local" : 1]>
Outer (p) => (q, r) {
  i = local.Inner(p)
  q = Add(i, p)
  r = Identity(p)
}
)";
  auto m = inline_and_compare(text, {2});
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->functions.empty());
  EXPECT_EQ(inline_test_count(*m->graph, "Relu"), 1u);
  std::map<std::string, ir::Tensor> f{{"x", ops::make_tensor<float>({2}, {-2, 5})}};
  EXPECT_EQ(inline_test_run(*m, f, 0), (std::vector<float>{-2, 10}));
  EXPECT_EQ(inline_test_run(*m, f, 1), (std::vector<float>{-2, 5}));
  EXPECT_EQ(m->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(m->graph->outputs()[1]->name(), "same");
}

TEST(InlineFunctions, FunctionOutputThatIsItsInputGetsAnIdentity) {
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) {
  y = local.Pass(x)
}
<domain: "local", opset_import: ["" : 18]>
Pass (a) => (a) {
}
)";
  auto orig = test::parse(text);
  if (!orig) GTEST_SKIP() << "the text syntax does not take an empty body here";
  auto m = inline_and_compare(text, {2});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph->outputs()[0]->name(), "y");
  EXPECT_EQ(m->graph->outputs()[0]->producer()->op_type, "Identity");
}

TEST(InlineFunctions, MissingOptionalInputStaysMissing) {
  // Clip's min and max come from the function's optional inputs; the call gives only max.
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[3] x, float hi) => (float[3] y) {
  y = local.Bound(x, , hi)
}
<domain: "local", opset_import: ["" : 18]>
Bound (v, lo, up) => (w) {
  w = Clip(v, lo, up)
}
)";
  auto orig = test::parse(text);
  ASSERT_TRUE(orig);
  auto m = test::parse(text);
  ASSERT_TRUE(m);
  auto res = ir::inline_functions(*m);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
  const ir::Node* clip = nullptr;
  m->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Clip") clip = n;
  });
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->input(1), nullptr);
  EXPECT_EQ(inline_test_run(
                *m, {{"x", ops::make_tensor<float>({3}, {-5, 0.5f, 4})}, {"hi", ops::make_tensor<float>({}, {1})}}),
            (std::vector<float>{-5, 0.5f, 1}));
  // The evaluator runs the call itself with the input left out, as absent: the same values.
  EXPECT_EQ(inline_test_run(
                *orig, {{"x", ops::make_tensor<float>({3}, {-5, 0.5f, 4})}, {"hi", ops::make_tensor<float>({}, {1})}}),
            (std::vector<float>{-5, 0.5f, 1}));
}

TEST(InlineFunctions, CallInsideAnIfBranch) {
  const std::string text = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t () => (float[2] a) { a = local.Twice(x) },
    else_branch = e () => (float[2] b) { b = Neg(x) }
  >
}
<domain: "local", opset_import: ["" : 18]>
Twice (u) => (v) {
  v = Add(u, u)
}
)";
  auto orig = test::parse(text);
  ASSERT_TRUE(orig);
  auto m = ir::clone_model(*orig);
  auto res = ir::inline_functions(*m);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_EQ(res.value().calls, 1);
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
  EXPECT_EQ(inline_test_count(*m->graph, "Twice"), 0u);
  EXPECT_EQ(inline_test_count(*m->graph, "Add"), 1u);
  for (bool c : {true, false}) {
    ir::Tensor ct(ir::DataType::kBool, {});
    ct.mutable_data<bool>()[0] = c;
    std::map<std::string, ir::Tensor> f{{"c", ct}, {"x", ops::make_tensor<float>({2}, {1.5f, -2})}};
    EXPECT_EQ(inline_test_run(*m, f), inline_test_run(*orig, f));
    EXPECT_EQ(inline_test_run(*m, f), c ? (std::vector<float>{3, -4}) : (std::vector<float>{-1.5f, 2}));
  }
}

TEST(InlineFunctions, ModelWithoutCallsIsUnchangedAndUncalledFunctionsStay) {
  auto m = test::parse(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) { y = Relu(x) }
<domain: "local", opset_import: ["" : 18]>
Unused (u) => (v) { v = Neg(u) }
)");
  ASSERT_TRUE(m);
  auto res = ir::inline_functions(*m);
  ASSERT_TRUE(res.is_ok());
  EXPECT_EQ(res.value().calls, 0);
  EXPECT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(inline_test_count(*m->graph, "Relu"), 1u);
}

TEST(InlineFunctions, RefusesARecursiveFunction) {
  auto m = test::parse(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.A(x) }
<domain: "local", opset_import: ["" : 18, "local" : 1]>
A (u) => (v) { v = local.B(u) }
<domain: "local", opset_import: ["" : 18, "local" : 1]>
B (u) => (v) { v = local.A(u) }
)");
  ASSERT_TRUE(m);
  auto res = ir::inline_functions(*m);
  ASSERT_FALSE(res.is_ok());
  EXPECT_NE(res.status().message().find("calls itself (local:A -> local:B -> local:A)"), std::string::npos)
      << res.status().message();
  EXPECT_EQ(m->functions.size(), 2u);  // unchanged
  EXPECT_EQ(inline_test_count(*m->graph, "A"), 1u);
}

TEST(InlineFunctions, RefusesAnotherOpsetOfTheSameDomain) {
  auto m = test::parse(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.F(x) }
<domain: "local", opset_import: ["" : 13]>
F (u) => (v) { v = Relu(u) }
)");
  ASSERT_TRUE(m);
  auto res = ir::inline_functions(*m);
  ASSERT_FALSE(res.is_ok());
  EXPECT_NE(res.status().message().find("function local:F imports ai.onnx opset 13, the model opset 18"),
            std::string::npos)
      << res.status().message();
  EXPECT_EQ(inline_test_count(*m->graph, "F"), 1u);
}

TEST(InlineFunctions, ImportsADomainOnlyTheFunctionUses) {
  auto m = test::parse(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.F(x) }
<domain: "local", opset_import: ["" : 18, "com.microsoft" : 1]>
F (u) => (v) { v = Relu(u) }
)");
  ASSERT_TRUE(m);
  auto res = ir::inline_functions(*m);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_EQ(m->opset("com.microsoft"), 1);
  ASSERT_EQ(res.value().opsets_added.size(), 1u);
  EXPECT_EQ(res.value().opsets_added[0], "com.microsoft=1");
  EXPECT_EQ(res.value().removed, (std::vector<std::string>{"local:F"}));
}

// Without inlining: the evaluator runs the call, its attribute references resolved.
TEST(FunctionCall, TheEvaluatorResolvesAttributeReferences) {
  auto m = test::parse(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.Scale<k = 3.0>(x) }
<domain: "local", opset_import: ["" : 18]>
Scale <k> (x) => (y) {
  c = Constant<value_float: float = @k>()
  y = Mul(x, c)
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(inline_test_run(*m, {{"x", ops::make_tensor<float>({2}, {1, 2})}}), (std::vector<float>{3, 6}));
}

}  // namespace
}  // namespace onnxtrim
