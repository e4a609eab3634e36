// Graph surgery through the public C++ and C APIs: --inputs/--outputs (across an If that
// captures outer values and a model-local function), --add-outputs, --rename, --batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "onnxtrim/onnxtrim.h"
#include "onnxtrim/onnxtrim.hpp"

namespace {

// x -> Relu -> local.Twice -> b; b and y meet in an If whose branches read them from the outer
// scope (then: b*b, else: b-y), and in aux = Sigmoid(b + y).
const char* kModel = R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[N,4] x, float[N,4] y) => (float[N,4] out, float[N,4] aux) {
  a = Relu(x)
  b = local.Twice(a)
  m = Add(b, y)
  s = ReduceSum<keepdims = 0>(b)
  zero = Constant<value = float {0}>()
  c = Greater(s, zero)
  z = If(c) <
    then_branch = t1 () => (float[N,4] o1) { o1 = Mul(b, b) },
    else_branch = t2 () => (float[N,4] o2) { o2 = Sub(b, y) }
  >
  out = Tanh(z)
  aux = Sigmoid(m)
}
<domain: "local", opset_import: ["" : 18]>
Twice (x) => (y) {
  y = Add(x, x)
}
)";

onnxtrim::Report simplify_with(onnxtrim::Model& m, const std::vector<std::pair<std::string, std::string>>& opts) {
  onnxtrim::Options o;
  for (const auto& [k, v] : opts) o.set(k, v);
  return onnxtrim::simplify(m, o);
}

int usage_error(const std::vector<std::pair<std::string, std::string>>& opts, std::string* msg,
                const char* text = kModel) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(text);
  try {
    simplify_with(m, opts);
  } catch (const onnxtrim::Error& e) {
    *msg = e.what();
    return e.exit_code();
  }
  return 0;
}

onnxtrim::Tensor floats(std::vector<int64_t> shape, std::vector<float> v) {
  auto owner = std::make_shared<std::vector<float>>(std::move(v));
  onnxtrim::Tensor t;
  t.dtype = 1;
  t.shape = std::move(shape);
  t.data = owner->data();
  t.nbytes = owner->size() * sizeof(float);
  t.owner = owner;
  return t;
}

std::vector<float> values(const onnxtrim::Tensor& t) {
  std::vector<float> v(t.nbytes / sizeof(float));
  std::memcpy(v.data(), t.data, t.nbytes);
  return v;
}

bool has_op(const onnxtrim::Model& m, const std::string& op) { return m.stats().op_histogram.count(op) != 0; }

TEST(Surgery, OutputsCutAfterTheFunctionCall) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kModel);
  onnxtrim::Report r = simplify_with(m, {{"outputs", "b"}});
  EXPECT_EQ(m.output_names(), std::vector<std::string>{"b"});
  EXPECT_EQ(m.input_names(), std::vector<std::string>{"x"});  // y no longer reaches an output
  EXPECT_FALSE(has_op(m, "If"));
  EXPECT_FALSE(has_op(m, "Sigmoid"));
  EXPECT_TRUE(r.verification.ran);
  EXPECT_TRUE(r.verification.ok);
  EXPECT_NE(r.verification.compared.find("at b"), std::string::npos) << r.verification.compared;
  ASSERT_FALSE(r.surgery.empty());
  // b = 2 * relu(x)
  auto out = onnxtrim::run(m, {{"x", floats({1, 4}, {-1, 2, -3, 4})}});
  EXPECT_EQ(values(out.at("b")), (std::vector<float>{0, 4, 0, 8}));
}

TEST(Surgery, InputsCutBelowTheFunctionAcrossTheIf) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kModel);
  onnxtrim::Report r = simplify_with(m, {{"inputs", "b,y"}, {"outputs", "out"}});
  EXPECT_EQ(m.input_names(), (std::vector<std::string>{"b", "y"}));
  EXPECT_EQ(m.output_names(), std::vector<std::string>{"out"});
  EXPECT_FALSE(has_op(m, "Relu"));
  EXPECT_FALSE(has_op(m, "local.Twice"));
  EXPECT_TRUE(has_op(m, "If"));
  // b becomes an input with its inferred type; the If branches still read it.
  EXPECT_NE(m.to_text().find("float[N,4] b"), std::string::npos) << m.to_text();
  EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.why;
  EXPECT_NE(r.verification.compared.find("cut points b"), std::string::npos) << r.verification.compared;
  // then branch (sum(b) > 0): tanh(b*b); else: tanh(b - y)
  auto out = onnxtrim::run(m, {{"b", floats({1, 4}, {1, 1, 1, 1})}, {"y", floats({1, 4}, {5, 5, 5, 5})}});
  EXPECT_NEAR(values(out.at("out"))[0], std::tanh(1.0f), 1e-6);
  out = onnxtrim::run(m, {{"b", floats({1, 4}, {-1, 0, 0, 0})}, {"y", floats({1, 4}, {1, 0, 0, 0})}});
  EXPECT_NEAR(values(out.at("out"))[0], std::tanh(-2.0f), 1e-6);
}

TEST(Surgery, InputsOnlyKeepTheOutputs) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kModel);
  onnxtrim::Report r = simplify_with(m, {{"inputs", "a y"}});  // OnnxSlim's spelling: words
  EXPECT_EQ(m.input_names(), (std::vector<std::string>{"a", "y"}));
  EXPECT_EQ(m.output_names(), (std::vector<std::string>{"out", "aux"}));
  EXPECT_FALSE(has_op(m, "Relu"));
  EXPECT_TRUE(r.verification.ok);
}

TEST(Surgery, Errors) {
  std::string msg;
  EXPECT_EQ(usage_error({{"outputs", "ghost"}}, &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("no value named 'ghost'"), std::string::npos) << msg;
  EXPECT_EQ(usage_error({{"outputs", "o1"}}, &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("inside a subgraph"), std::string::npos) << msg;
  EXPECT_EQ(usage_error({{"inputs", "ghost"}}, &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("'ghost'"), std::string::npos) << msg;
  // out reads y in the else branch: y must be kept.
  EXPECT_EQ(usage_error({{"inputs", "b"}, {"outputs", "out"}}, &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("output 'out' still depends on graph input 'y'"), std::string::npos) << msg;
  EXPECT_EQ(usage_error({{"rename", "a=q"}}, &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("'a' is not a graph input or output"), std::string::npos) << msg;
  EXPECT_EQ(usage_error({{"rename", "x=y"}}, &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("already used"), std::string::npos) << msg;
  EXPECT_THROW(onnxtrim::Options().set("batch", "0"), onnxtrim::Error);
  EXPECT_THROW(onnxtrim::Options().set("inputs", "x:fp16"), onnxtrim::Error);
}

TEST(Surgery, RenameReachesSubgraphUses) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kModel);
  onnxtrim::Report r = simplify_with(m, {{"rename", "y=why,out=result"}});
  EXPECT_EQ(m.input_names(), (std::vector<std::string>{"x", "why"}));
  EXPECT_EQ(m.output_names(), (std::vector<std::string>{"result", "aux"}));
  std::string text = m.to_text();
  EXPECT_NE(text.find("Sub (b, why)"), std::string::npos) << text;  // inside the else branch
  EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.why;
  // A swap works.
  onnxtrim::Model s = onnxtrim::Model::parse_text(kModel);
  simplify_with(s, {{"rename", "x=y,y=x"}});
  EXPECT_EQ(s.input_names(), (std::vector<std::string>{"y", "x"}));
}

TEST(Surgery, AddOutputsSurviveTheFusions) {
  // Without the mark, Conv+BatchNormalization fuse and Identity goes; marked, both values stay.
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,1,3,3] x) => (float[1,1,3,3] y) {
  w = Constant<value = float[1,1,1,1] {2}>()
  sc = Constant<value = float[1] {3}>()
  bi = Constant<value = float[1] {1}>()
  mu = Constant<value = float[1] {0.5}>()
  va = Constant<value = float[1] {1}>()
  c = Conv(x, w)
  y = BatchNormalization(c, sc, bi, mu, va)
}
)";
  onnxtrim::Model plain = onnxtrim::Model::parse_text(text);
  simplify_with(plain, {});
  EXPECT_FALSE(has_op(plain, "BatchNormalization"));
  onnxtrim::Model m = onnxtrim::Model::parse_text(text);
  onnxtrim::Report r = simplify_with(m, {{"add-outputs", "c"}});
  EXPECT_EQ(m.output_names(), (std::vector<std::string>{"y", "c"}));
  EXPECT_TRUE(r.verification.ok);
  auto out = onnxtrim::run(m, {{"x", floats({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})}});
  EXPECT_EQ(values(out.at("c"))[0], 2.0f);

  onnxtrim::Model all = onnxtrim::Model::parse_text(kModel);
  r = simplify_with(all, {{"add-outputs", "all"}});
  auto names = all.output_names();
  for (const char* n : {"out", "aux", "a", "b", "m", "s", "c", "z"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.why;
}

TEST(Surgery, BatchFixesTheLeadingDim) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kModel);
  onnxtrim::Report r = simplify_with(m, {{"batch", "4"}});
  std::string text = m.to_text();
  EXPECT_NE(text.find("float[4,4] x"), std::string::npos) << text;
  EXPECT_NE(text.find("float[4,4] y"), std::string::npos) << text;
  EXPECT_TRUE(r.verification.ok);
  EXPECT_EQ(r.verification.dims.at("N"), 4);
}

const char* kStaticReshape = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,6] x) => (float[1,12] y, float[1,3,4] z) {
  s = Constant<value = int64[2] {1, 12}>()
  r = Reshape(x, s)
  y = Relu(r)
  t = Constant<value = int64[3] {1, 3, -1}>()
  z = Reshape(x, t)
}
)";

TEST(Surgery, BatchDynamicRewritesReshapesThatCopyTheBatch) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kStaticReshape);
  onnxtrim::Report r = simplify_with(m, {{"batch", "dynamic"}});
  std::string text = m.to_text();
  EXPECT_NE(text.find("float[batch,2,6] x"), std::string::npos) << text;
  EXPECT_NE(text.find("float[batch,12] y"), std::string::npos) << text;
  EXPECT_NE(text.find("float[batch,3,4] z"), std::string::npos) << text;  // a graph output Reshape
  EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.why;
  EXPECT_NE(r.verification.compared.find("stacked"), std::string::npos) << r.verification.compared;
  std::vector<float> in(3 * 12);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) - 10;
  auto out = onnxtrim::run(m, {{"x", floats({3, 2, 6}, in)}});
  std::vector<float> y = values(out.at("y"));
  ASSERT_EQ(y.size(), 36u);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], std::max(0.0f, in[i]));
  EXPECT_EQ(out.at("z").shape, (std::vector<int64_t>{3, 3, 4}));

  // --batch 4 on the same static model: freed, then fixed; checked on 4 stacked samples.
  onnxtrim::Model f = onnxtrim::Model::parse_text(kStaticReshape);
  r = simplify_with(f, {{"batch", "4"}});
  EXPECT_NE(f.to_text().find("float[4,2,6] x"), std::string::npos) << f.to_text();
  EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.why;
  EXPECT_NE(r.verification.compared.find("4 samples"), std::string::npos) << r.verification.compared;
}

TEST(Surgery, BatchDynamicRefusesANodeThatBakesTheBatchIn) {
  std::string msg;
  // The Reshape drops the batch axis: no exact rewrite exists.
  EXPECT_EQ(usage_error({{"batch", "dynamic"}}, &msg, R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,12] x) => (float[12] y) {
  s = Constant<value = int64[1] {12}>()
  r = Reshape(x, s)
  y = Relu(r)
}
)"),
            onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("node 'producing r (Reshape)' reads 'x' [batch,12]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Reshape"), std::string::npos) << msg;
  // A reduction over the batch mixes the samples.
  EXPECT_EQ(usage_error({{"batch", "dynamic"}}, &msg, R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,12] x) => (float[1,12] y) {
  ax = Constant<value = int64[1] {0}>()
  y = ReduceSum<keepdims = 1>(x, ax)
}
)"),
            onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("ReduceSum"), std::string::npos) << msg;
}

TEST(Surgery, CApi) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(kModel);
  std::string bytes = m.serialize();
  onnxtrim_options* o = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_set(o, "inputs", "b,y"), 0);
  ASSERT_EQ(onnxtrim_options_set(o, "outputs", "out"), 0);
  ASSERT_EQ(onnxtrim_options_set(o, "rename", "b=features"), 0);
  EXPECT_EQ(onnxtrim_options_set(o, "batch", "zero"), 2);
  void* out = nullptr;
  size_t size = 0;
  char *report = nullptr, *error = nullptr;
  int rc = onnxtrim_simplify_buffer(bytes.data(), bytes.size(), o, &out, &size, &report, &error);
  ASSERT_EQ(rc, 0) << (error ? error : "");
  onnxtrim::Model r = onnxtrim::Model::parse(out, size);
  EXPECT_EQ(r.input_names(), (std::vector<std::string>{"features", "y"}));
  EXPECT_NE(std::string(report).find("\"compared\""), std::string::npos) << report;
  onnxtrim_free(out);
  onnxtrim_free(report);
  onnxtrim_options_free(o);

  o = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_set(o, "outputs", "ghost"), 0);
  out = nullptr;
  report = nullptr;
  rc = onnxtrim_simplify_buffer(bytes.data(), bytes.size(), o, &out, &size, &report, &error);
  EXPECT_EQ(rc, 2);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("ghost"), std::string::npos) << error;
  onnxtrim_free(error);
  onnxtrim_free(report);
  onnxtrim_options_free(o);
}

}  // namespace
