// --custom-op-schema with ONNX functions (ops/custom_ops.h): the body of com.acme::Foo is what
// shape inference infers and what the evaluator runs for a call, exact values without ONNX
// Runtime; nothing of it outside the scope.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "eval/interpreter.h"
#include "onnx_io/onnx_io.h"
#include "ops/custom_ops.h"
#include "onnxtrim/onnxtrim.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

const char* kCustomFooFunction = R"(
<domain: "com.acme", opset_import: ["" : 17]>
Foo (x, z) => (y) {
  s = Add(x, z)
  r = Relu(s)
  two = Constant <value = float {2.0}> ()
  y = Mul(r, two)
}
)";

const char* kCustomFooModel = R"(
<ir_version: 8, opset_import: ["" : 17, "com.acme" : 1]>
g (float[N,3] x, float[3] z) => (float[N,3] out) {
  y = com.acme.Foo(x, z)
  out = Neg(y)
}
)";

ops::CustomOpRules custom_foo_rules() {
  auto f = onnx_io::parse_text_functions(kCustomFooFunction, "foo.txt");
  EXPECT_TRUE(f.is_ok()) << f.status().message();
  auto r = ops::function_custom_ops(std::shared_ptr<const ir::Model>(std::move(f).value()), "foo.txt");
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? std::move(r).value() : ops::CustomOpRules{};
}

TEST(CustomOpFunction, ShapeInferenceInfersTheBody) {
  auto m = test::parse(kCustomFooModel);
  ASSERT_TRUE(m);
  ops::CustomOpRules rules = custom_foo_rules();
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].domain, "com.acme");
  EXPECT_EQ(rules[0].op_type, "Foo");
  const ir::Value* y = m->graph->find_value("y");
  {
    ops::CustomOpScope scope(&rules);
    passes::ShapeInference si(*m);
    ASSERT_TRUE(si.run().is_ok());
    const ops::TypeInfo* t = si.facts(y);
    ASSERT_TRUE(t && t->shape) << "no shape for y";
    EXPECT_EQ(t->elem, ir::DataType::kFloat);
    ASSERT_EQ(t->shape->size(), 2u);
    EXPECT_EQ((*t->shape)[0].str(), "N");
    EXPECT_EQ((*t->shape)[1].str(), "3");
  }
  passes::ShapeInference without(*m);  // outside the scope: unknown
  ASSERT_TRUE(without.run().is_ok());
  const ops::TypeInfo* t = without.facts(y);
  EXPECT_TRUE(!t || !t->shape);
}

TEST(CustomOpFunction, TheEvaluatorRunsTheBodyExactly) {
  auto m = test::parse(kCustomFooModel);
  ASSERT_TRUE(m);
  ops::CustomOpRules rules = custom_foo_rules();
  std::map<std::string, ir::RuntimeValue> feeds;
  feeds["x"] = ir::RuntimeValue::of(ops::make_tensor<float>({2, 3}, {1, -2, 3, -4, 5, -6}));
  feeds["z"] = ir::RuntimeValue::of(ops::make_tensor<float>({3}, {0.5f, 0.5f, -10}));
  {
    ops::CustomOpScope scope(&rules);
    eval::Interpreter interp(*m);
    EXPECT_TRUE(interp.check_supported().is_ok());
    auto r = interp.run(feeds);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    // out = -(2 * Relu(x + z))
    EXPECT_EQ(r.value()[0].tensor.to_vector<float>(), (std::vector<float>{-3, 0, 0, 0, -11, 0}));
  }
  eval::Interpreter outside(*m);
  EXPECT_FALSE(outside.check_supported().is_ok());
  EXPECT_FALSE(outside.run(feeds).is_ok());
}

TEST(CustomOpFunction, OnnxsOwnDomainsAreRefused) {
  auto f = onnx_io::parse_text_functions(
      R"(<domain: "ai.onnx.ml", opset_import: ["" : 17]> Foo (x) => (y) { y = Relu(x) })", "own.txt");
  ASSERT_TRUE(f.is_ok());
  auto r = ops::function_custom_ops(std::shared_ptr<const ir::Model>(std::move(f).value()), "own.txt");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUsage);
  EXPECT_NE(r.status().message().find("ONNX's own"), std::string::npos) << r.status().message();
}

TEST(CustomOpFunction, FromTheCApiTheCheckRunsTheBody) {
  test::TempDir tmp;
  auto m = test::parse(kCustomFooModel);
  ASSERT_TRUE(m);
  const std::string in = tmp.file("in.onnx"), out = tmp.file("out.onnx"), fn = tmp.file("foo.txt");
  ASSERT_TRUE(onnx_io::save_model(*m, in).is_ok());
  std::ofstream(fn) << kCustomFooFunction;
  auto run = [&](bool with_function) {
    onnxtrim_options* o = onnxtrim_options_new();
    if (with_function) {
      EXPECT_EQ(onnxtrim_options_set(o, "custom-op-schema", fn.c_str()), 0);
    }
    char* json = nullptr;
    char* error = nullptr;
    int rc = onnxtrim_simplify_file(in.c_str(), out.c_str(), o, &json, &error);
    EXPECT_EQ(rc, 0) << (error ? error : "");
    nlohmann::json j = json ? nlohmann::json::parse(json) : nlohmann::json::object();
    onnxtrim_free(json);
    onnxtrim_free(error);
    onnxtrim_options_free(o);
    return j;
  };
  nlohmann::json with = run(true);
  EXPECT_TRUE(with.at("verification").at("ran").get<bool>()) << with.at("verification").dump();
  EXPECT_TRUE(with.at("verification").at("ok").get<bool>());
  nlohmann::json without = run(false);
  EXPECT_FALSE(without.at("verification").at("ran").get<bool>());
  EXPECT_NE(without.at("verification").at("skipped").get<std::string>().find("no kernel for operator Foo"),
            std::string::npos);
}

}  // namespace
}  // namespace onnxtrim
