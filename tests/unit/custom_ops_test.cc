// --custom-op-schema (ops/custom_ops.h): a JSON rule gives a custom op's output types and shapes
// to shape inference, for one run only.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "api/internal.h"
#include "ops/custom_ops.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/shape_inference.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

// y, k = com.acme.Foo(x, z) (two outputs), standard ops after it, k a graph output; Foo inside
// both branches of an If (a subgraph case).
const char* kCustomOpsModel = R"(
<ir_version: 8, opset_import: ["" : 17, "com.acme" : 1]>
g (float[N, 3, 8] x, float[3, 1] z, bool c) => (float[N, 5, 1] out, out2, out3) {
  y, k = com.acme.Foo(x, z)
  out = Relu(y)
  out2 = Identity(k)
  out3 = If(c) <then_branch = t () => (ty) { ty = com.acme.Foo(z, z) },
                else_branch = e () => (ey) { ey = com.acme.Foo(z, z) }>
}
)";

const char* kCustomOpsSchema = R"([
  {"domain": "com.acme", "op": "Foo", "since_version": 1,
   "outputs": [{"type": "same_as_input:0", "shape": ["input:0:dim:0", 5, "input:1:dim:-1"]},
               {"type": "int64", "shape": "broadcast"}]}
])";

std::string custom_ops_write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

const ops::TypeInfo* custom_ops_fact(const passes::ShapeInference& si, const ir::Model& m, const std::string& name) {
  const ir::Value* v = m.graph->find_value(name);
  return v ? si.facts(v) : nullptr;
}

TEST(CustomOps, JsonRuleGivesOutputTypesAndShapes) {
  auto m = test::parse(kCustomOpsModel);
  ASSERT_TRUE(m);
  auto rules = ops::parse_custom_op_schemas(kCustomOpsSchema, "acme.json");
  ASSERT_TRUE(rules.is_ok()) << rules.status().message();
  ASSERT_EQ(rules.value().size(), 1u);
  ops::CustomOpScope scope(&rules.value());
  passes::ShapeInference si(*m);
  ASSERT_TRUE(si.run().is_ok());
  EXPECT_TRUE(si.errors().empty()) << si.errors().front().message();
  // y: input 0's type; [x's dim 0, 5, z's last dim] = [N, 5, 1]; Relu after it knows it too.
  for (const char* name : {"y", "out"}) {
    const ops::TypeInfo* y = custom_ops_fact(si, *m, name);
    ASSERT_TRUE(y && y->shape) << name;
    EXPECT_EQ(y->elem, ir::DataType::kFloat);
    ASSERT_EQ(y->shape->size(), 3u);
    EXPECT_EQ((*y->shape)[0].str(), "N");
    EXPECT_EQ((*y->shape)[1].constant_value(), 5);
    EXPECT_EQ((*y->shape)[2].constant_value(), 1);
  }
  // k (through Identity, a graph output): int64, [N, 3, 8] broadcast with [3, 1].
  const ops::TypeInfo* k = custom_ops_fact(si, *m, "out2");
  ASSERT_TRUE(k && k->shape);
  EXPECT_EQ(k->elem, ir::DataType::kInt64);
  ASSERT_EQ(k->shape->size(), 3u);
  EXPECT_EQ((*k->shape)[0].str(), "N");
  EXPECT_EQ((*k->shape)[1].constant_value(), 3);
  EXPECT_EQ((*k->shape)[2].constant_value(), 8);
  // Inside both If branches Foo(z, z) is [3, 5, 1], so the If's output is too.
  const ops::TypeInfo* o3 = custom_ops_fact(si, *m, "out3");
  ASSERT_TRUE(o3 && o3->shape);
  EXPECT_EQ(o3->elem, ir::DataType::kFloat);
  ASSERT_EQ(o3->static_shape(), (std::vector<int64_t>{3, 5, 1}));
}

TEST(CustomOps, InputsThatDoNotBroadcastAreTheNodesError) {
  std::string text = kCustomOpsModel;
  text.replace(text.find("float[3, 1] z"), 13, "float[1, 7] z");
  text.replace(text.find("float[N, 5, 1] out"), 18, "float[N, 5, 7] out");
  auto m = test::parse(text);
  ASSERT_TRUE(m);
  auto rules = ops::parse_custom_op_schemas(kCustomOpsSchema, "acme.json");
  ASSERT_TRUE(rules.is_ok());
  ops::CustomOpScope scope(&rules.value());
  passes::ShapeInference si(*m);
  ASSERT_TRUE(si.run().is_ok());
  ASSERT_FALSE(si.errors().empty()) << "[N, 3, 8] and [1, 7] do not broadcast (8 vs 7)";
  EXPECT_NE(si.errors().front().message().find("do not broadcast"), std::string::npos) << si.errors().front().message();
  EXPECT_NE(si.errors().front().message().find("acme.json entry 0"), std::string::npos)
      << si.errors().front().message();
}

TEST(CustomOps, NothingKnownWithoutTheSchemaOrAfterItsScope) {
  auto m = test::parse(kCustomOpsModel);
  ASSERT_TRUE(m);
  auto rules = ops::parse_custom_op_schemas(kCustomOpsSchema, "acme.json");
  ASSERT_TRUE(rules.is_ok());
  {
    ops::CustomOpScope scope(&rules.value());
    EXPECT_NE(ops::find_custom_op("com.acme", "Foo", 1), nullptr);
    EXPECT_EQ(ops::find_custom_op("com.acme", "Bar", 1), nullptr);
    EXPECT_EQ(ops::find_custom_op("com.acme", "Foo", 0), ops::find_custom_op("com.acme", "Foo", 1));
    // Another thread (a concurrent run) does not see this thread's schemas.
    bool other_sees = true;
    std::thread([&] { other_sees = ops::find_custom_op("com.acme", "Foo", 1) != nullptr; }).join();
    EXPECT_FALSE(other_sees);
  }
  EXPECT_EQ(ops::find_custom_op("com.acme", "Foo", 1), nullptr);
  passes::ShapeInference si(*m);
  ASSERT_TRUE(si.run().is_ok());
  const ops::TypeInfo* y = custom_ops_fact(si, *m, "y");
  EXPECT_TRUE(!y || !y->shape) << "no rule outside the run: rank unknown";
}

TEST(CustomOps, SinceVersionNewerThanTheModelDoesNotApply) {
  auto rules = ops::parse_custom_op_schemas(
      R"([{"domain": "com.acme", "op": "Foo", "since_version": 3, "outputs": [{"type": "float"}]}])", "a.json");
  ASSERT_TRUE(rules.is_ok());
  ops::CustomOpScope scope(&rules.value());
  EXPECT_EQ(ops::find_custom_op("com.acme", "Foo", 2), nullptr);
  EXPECT_NE(ops::find_custom_op("com.acme", "Foo", 3), nullptr);
}

TEST(CustomOps, BadSchemasAreRefusedNamingFileAndEntry) {
  struct Case {
    const char* json;
    const char* says;
  };
  const Case cases[] = {
      {R"({"domain": "x"})", "a JSON list"},
      {R"([1, 2)", "not a custom-op schema file"},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float"}]},
           {"domain": "com.acme", "op": "Bar", "outputs": [{"type": "floaty"}]}])",
       "entry 1 (com.acme::Bar): unknown \"type\" 'floaty'"},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float", "shape": ["input:x:dim:1"]}]}])",
       "entry 0 (com.acme::Foo): bad dim 'input:x:dim:1'"},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float", "shape": [-3]}]}])", "bad dim -3"},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float", "shape": "elementwise"}]}])",
       "unknown \"shape\" 'elementwise'"},
      {R"([{"domain": "", "op": "Relu", "outputs": [{"type": "float"}]}])", "ONNX's own"},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": []}])", "needs \"outputs\""},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float"}], "attributes": {}}])",
       "unknown key \"attributes\""},
      {R"([{"domain": "com.acme", "op": "Foo", "since_version": 0, "outputs": [{"type": "float"}]}])", "since_version"},
      {R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float"}]},
           {"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float"}]}])",
       "entry 1 (com.acme::Foo): describes com.acme::Foo again"},
  };
  for (const Case& c : cases) {
    auto r = ops::parse_custom_op_schemas(c.json, "bad.json");
    ASSERT_FALSE(r.is_ok()) << c.json;
    EXPECT_EQ(r.status().code(), ErrorCode::kUsage);
    EXPECT_NE(r.status().message().find("bad.json"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
  auto missing = ops::load_custom_op_schemas("/nonexistent/acme.json");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kIo);
  EXPECT_NE(missing.status().message().find("/nonexistent/acme.json"), std::string::npos);
}

TEST(CustomOps, ThroughTheApiForOneRunOnly) {
  test::TempDir dir;
  Options o;
  o.verify = Options::Verify::kOff;
  std::string text = kCustomOpsModel;
  o.custom_op_schemas = {custom_ops_write(dir, "acme.json", kCustomOpsSchema)};
  Model with = Model::parse_text(text);
  simplify(with, o);
  const ir::Value* k = api::ir_model(with).graph->find_value("out2");
  ASSERT_TRUE(k);
  ASSERT_TRUE(k->type.has_shape);
  EXPECT_EQ(k->type.elem, ir::DataType::kInt64);
  ASSERT_EQ(k->type.dims.size(), 3u);
  EXPECT_EQ(k->type.dims[0].param, "N");
  EXPECT_EQ(k->type.dims[1].value, 3);
  EXPECT_EQ(k->type.dims[2].value, 8);
  // The next run in this process, without the option: the op is unknown again.
  Model without = Model::parse_text(text);
  simplify(without, Options{});
  const ir::Value* k2 = api::ir_model(without).graph->find_value("out2");
  ASSERT_TRUE(k2);
  EXPECT_FALSE(k2->type.has_shape);
  // A bad file: a usage error naming it and the entry; the model is left as it was.
  o.custom_op_schemas = {
      custom_ops_write(dir, "bad.json", R"([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "?"}]}])")};
  Model bad = Model::parse_text(text);
  try {
    simplify(bad, o);
    ADD_FAILURE() << "a bad schema file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    std::string msg = e.what();
    EXPECT_NE(msg.find("bad.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("entry 0 (com.acme::Foo)"), std::string::npos) << msg;
  }
  // The option's name in the one table (CLI, C, Python).
  Options named;
  named.set("custom-op-schema", dir.file("acme.json"));
  ASSERT_EQ(named.custom_op_schemas.size(), 1u);
  EXPECT_EQ(named.custom_op_schemas[0], dir.file("acme.json"));
}

}  // namespace
}  // namespace onnxtrim
