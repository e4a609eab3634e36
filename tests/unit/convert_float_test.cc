// --dtype: the float precision conversion (src/convert/convert_float.cc), through the public API
// so that each case also runs the check (relative L2 error per output against the original).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "ops/registry.h"
#include "api/internal.h"
#include "ir/printer.h"
#include "onnxtrim/onnxtrim.hpp"
#include "api_test_util.h"

namespace onnxtrim {
namespace {

using test::Converted;

Converted convert(const std::string& text_or_model, const std::string& dtype, bool keep_io = true, int samples = 1,
                  const Model* from = nullptr) {
  Model m = from ? from->clone() : Model::parse_text(text_or_model);
  Options o;
  o.dtype = dtype;
  o.keep_io_types = keep_io;
  o.samples = samples;
  o.verify = Options::Verify::kOn;
  Report r = simplify(m, o);
  // The figures the check measured, for the log.
  for (const auto& oc : r.verification.outputs)
    std::printf("[ %s ] output %s: relative L2 error %.3g (tolerance %.3g)\n", dtype.c_str(), oc.name.c_str(),
                oc.rel_l2, r.verification.l2_tol);
  return Converted{std::move(m), std::move(r)};
}

const ir::Value* value(const Model& m, const std::string& name) {
  const ir::Model& im = api::ir_model(m);
  const ir::Value* found = nullptr;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
    if (const ir::Value* v = g.find_value(name)) found = v;
    g.for_each_node([&](const ir::Node* n) {
      for (const ir::Graph* sg : n->subgraphs()) scan(*sg);
    });
  };
  scan(*im.graph);
  return found;
}

ir::DataType elem(const Model& m, const std::string& name) {
  const ir::Value* v = value(m, name);
  EXPECT_NE(v, nullptr) << name << "\n" << m.to_text();
  return v ? v->type.elem : ir::DataType::kUndefined;
}

// The node producing `name` (nullptr for inputs and initializers).
const ir::Node* producer(const Model& m, const std::string& name) {
  const ir::Value* v = value(m, name);
  return v ? v->producer() : nullptr;
}

void expect_checked(const Report& r, double tol) {
  EXPECT_TRUE(r.verification.ran) << r.verification.skipped;
  EXPECT_TRUE(r.verification.ok) << r.verification.why;
  EXPECT_DOUBLE_EQ(r.verification.l2_tol, tol);
  for (const auto& o : r.verification.outputs) EXPECT_LE(o.rel_l2, tol) << o.name;
}

size_t count(const Model& m, const std::string& op) {
  size_t n = 0;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* node) {
      n += node->op_type == op;
      for (const ir::Graph* sg : node->subgraphs()) scan(*sg);
    });
  };
  scan(*api::ir_model(m).graph);
  return n;
}

// Resize: X converts, scales (tensor(float) in the spec) stay float32, and so does the shape
// arithmetic that computes them.
// The ops whose error the conversion measures from their output alone are declared so in
// their own files: copies of input elements, no arithmetic.
TEST(ConvertFloat, CopyingOpsAreDeclaredByTheirFiles) {
  const auto& reg = ops::OpRegistry::instance();
  for (const char* op : {"Transpose", "Gather", "Slice", "Concat", "Reshape", "Identity"})
    EXPECT_TRUE(reg.has("", op, ops::OpProperty::kCopiesElements)) << op;
  for (const char* op : {"Add", "MatMul", "Relu", "Cast", "Unknown"})
    EXPECT_FALSE(reg.has("", op, ops::OpProperty::kCopiesElements)) << op;
  EXPECT_FALSE(reg.has("", "Transpose", ops::OpProperty::kElementwise));
}

TEST(ConvertFloat, ResizeScalesStayFloat32) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 19]>
g (float[N,2,H,W] x) => (float[N,2,?,?] y) {
  w = Constant <value = float[1] {0.5}> ()
  a = Mul(x, w)
  s = Shape(x)
  f = Cast <to = 1> (s)
  one = Div(f, f)
  k = Constant <value = float[4] {1, 1, 2, 2}> ()
  sc = Mul(one, k)
  y = Resize <mode = "nearest"> (a, , sc)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "a"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "sc"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "one"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "y"), ir::DataType::kFloat);  // the output keeps its type
  const ir::Node* resize = nullptr;
  api::ir_model(c.model).graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Resize") resize = n;
  });
  ASSERT_NE(resize, nullptr);
  EXPECT_EQ(resize->input(0)->type.elem, ir::DataType::kFloat16);
  EXPECT_EQ(resize->input(2)->type.elem, ir::DataType::kFloat);
  bool shape = false;
  for (const auto& k : c.report.conversion.kept) shape |= k.reason.find("computed from Shape") != std::string::npos;
  EXPECT_TRUE(shape) << c.report.to_text();
}

// Constant scales: the initializer stays float32 (its reader takes float32 only).
TEST(ConvertFloat, ResizeConstantScalesStayFloat32) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2,4,4] x) => (float[1,2,8,8] y) {
  sc = Constant <value = float[4] {1, 1, 2, 2}> ()
  r = Constant <value = float[0] {}> ()
  e = Exp(x)
  y = Resize <mode = "linear"> (e, r, sc)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  const ir::Node* resize = nullptr;
  api::ir_model(c.model).graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Resize") resize = n;
  });
  ASSERT_NE(resize, nullptr);
  EXPECT_EQ(resize->input(0)->type.elem, ir::DataType::kFloat16);
  EXPECT_EQ(resize->input(1)->type.elem, ir::DataType::kFloat);  // roi: a control input
  EXPECT_EQ(resize->input(2)->type.elem, ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "y"), ir::DataType::kFloat);
}

// Cast(to=FLOAT) of an integer: `to` follows the output's new type, and the model is valid
// (the conversion's result goes through shape inference, which checks every op's types).
TEST(ConvertFloat, CastToFloatIsRetyped) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64[2,3] ids, float[2,3] x) => (float[2,3] y) {
  f = Cast <to = 1> (ids)
  s = Mul(f, x)
  y = Tanh(s)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  const ir::Node* cast = producer(c.model, "f");
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->attr_int("to", 0), static_cast<int64_t>(ir::DataType::kFloat16));
  EXPECT_EQ(elem(c.model, "f"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "y"), ir::DataType::kFloat);
}

// Generator ops: RandomNormalLike's dtype, EyeLike's dtype and ConstantOfShape's value follow
// their outputs. (scale = 0: a constant draw, so that the check can compare.)
TEST(ConvertFloat, GeneratorDtypesAreRetyped) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4] x, float[4,4] q) => (float[2,N,4] y, float[4,4] z) {
  r = RandomNormalLike <dtype = 1, mean = 0.5, scale = 0.0> (x)
  s = Shape(x)
  two = Constant <value = int64[1] {2}> ()
  s2 = Concat <axis = 0> (two, s)
  k = ConstantOfShape <value = float[1] {0.25}> (s2)
  a = Add(x, r)
  y = Mul(a, k)
  e = EyeLike <dtype = 1> (q)
  z = Add(q, e)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  const ir::Node* rn = producer(c.model, "r");
  ASSERT_NE(rn, nullptr);
  EXPECT_EQ(rn->attr_int("dtype", 0), static_cast<int64_t>(ir::DataType::kFloat16));
  EXPECT_EQ(elem(c.model, "r"), ir::DataType::kFloat16);
  const ir::Node* cs = producer(c.model, "k");
  ASSERT_NE(cs, nullptr);
  ASSERT_NE(cs->attr("value"), nullptr);
  EXPECT_EQ(cs->attr("value")->t->dtype(), ir::DataType::kFloat16);
  const ir::Node* eye = producer(c.model, "e");
  ASSERT_NE(eye, nullptr);
  EXPECT_EQ(eye->attr_int("dtype", 0), static_cast<int64_t>(ir::DataType::kFloat16));
}

// An If whose branches read an outer float32 value (a graph input that keeps its type) and
// their own weights: both branches compute in float16, the outer value is cast once.
TEST(ConvertFloat, IfBodiesWithOuterValues) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, bool c) => (float[2,3] y) {
  w = Constant <value = float[3] {1, 2, 3}> ()
  y = If(c) <
    then_branch = t () => (float[2,3] ot) { wb = Constant <value = float[3] {0.5, 0.25, 2}> ()  ot = Mul(x, wb) },
    else_branch = e () => (float[2,3] oe) { oe = Add(x, w) }>
}
)",
                   "fp16", true, 6);
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "ot"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "oe"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "wb"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "y"), ir::DataType::kFloat);
  EXPECT_EQ(c.report.conversion.kept.size(), 0u);
}

// A Loop: the carried value keeps its type (one type per iteration), the body computes in
// float16 between Casts; a scan output takes the body's type.
TEST(ConvertFloat, LoopCarriedValueKeepsItsType) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y, float[4,3] s) {
  n = Constant <value = int64 {4}> ()
  t = Constant <value = bool {1}> ()
  y, s = Loop(n, t, x) <body = b (int64 i, bool ci, float[3] acc) => (bool co, float[3] nx, float[3] so) {
    h = Constant <value = float[3] {0.5, 0.5, 0.5}> ()
    m = Mul(acc, h)
    nx = Add(m, h)
    so = Sin(nx)
    co = Identity(ci)
  }>
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "acc"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "y"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "s"), ir::DataType::kFloat);
}

// Shape arithmetic stays float32: a scale computed from a dim (sqrt(d), as attention does), and
// a small value computed from the data that is read only as an index (Cast to int64).
TEST(ConvertFloat, ShapeAndIndexArithmeticStayFloat32) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,D] x) => (float[N,D] y, int64 i) {
  s = Shape(x)
  k = Constant <value = int64 {1}> ()
  d = Gather(s, k)
  f = Cast <to = 1> (d)
  r = Sqrt(f)
  y = Div(x, r)
  m = ReduceMean <keepdims = 0> (x)
  h = Constant <value = float {100}> ()
  u = Mul(m, h)
  i = Cast <to = 7> (u)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "r"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "u"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "m"), ir::DataType::kFloat);
  bool saw_index = false, saw_shape = false;
  for (const auto& k : c.report.conversion.kept) {
    saw_index |= k.reason.find("index or shape arithmetic") != std::string::npos;
    saw_shape |= k.reason.find("computed from Shape") != std::string::npos;
  }
  EXPECT_TRUE(saw_index);
  EXPECT_TRUE(saw_shape);
  // The Div computes in float16 (x cast in, r cast down).
  const ir::Node* div = nullptr;
  api::ir_model(c.model).graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Div") div = n;
  });
  ASSERT_NE(div, nullptr);
  EXPECT_EQ(div->output(0)->type.elem, ir::DataType::kFloat16);
}

// A value beyond float16's range (and the constant that makes it) keeps its producer and its
// reader in float32; what comes after is back in range and converts.
TEST(ConvertFloat, ValueBeyond65504StaysFloat32) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y) {
  big = Constant <value = float {100000}> ()
  a = Mul(x, big)
  b = Div(a, big)
  e = Exp(b)
  y = Add(e, x)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "a"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "b"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "e"), ir::DataType::kFloat16);
  bool range = false;
  for (const auto& k : c.report.conversion.kept) range |= k.reason.find("beyond float16's range") != std::string::npos;
  EXPECT_TRUE(range) << c.report.to_text();
  EXPECT_GE(c.report.conversion.kept.size(), 2u);
}

// A node whose own float16 error is over the tolerance stays float32 (found on the same run),
// and so do the values it reads: (x + 1000) - 1000 loses up to 0.25 to float16's rounding of
// x + 1000, a quarter of x's scale.
TEST(ConvertFloat, NodeWithLargeErrorStaysFloat32) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[64] x) => (float[64] y) {
  k = Constant <value = float {1000}> ()
  a = Add(x, k)
  b = Sub(a, k)
  y = Mul(b, b)
}
)",
                   "fp16");
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "a"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "b"), ir::DataType::kFloat);
  bool err = false;
  for (const auto& k : c.report.conversion.kept) err |= k.reason.find("over the tolerance") != std::string::npos;
  EXPECT_TRUE(err) << c.report.to_text();
}

// Ops that only copy elements (Transpose, Gather, Concat, Reshape, Slice ...) have their error
// in the target type measured from their output alone (rounding their inputs first would give
// exactly the output rounded): no rounded copies, no second run, the same verdicts. Values
// under float16's smallest subnormal (1e-9) round to 0: such a copy has error 1 and stays
// float32, in the main graph and in an If body; copies of ordinary values convert, one of them
// a graph output. Were the tiny copies converted, y would be 0 and the check would fail.
TEST(ConvertFloat, ElementCopiesAreMeasuredOnTheirOutput) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x, bool b) => (float[8,4] y, float[8,4] u, float[10,4] z, float[8,4] w) {
  s = Constant <value = float {1e-9}> ()
  tiny = Mul(x, s)
  t = Transpose(tiny)
  big = Constant <value = float {1e9}> ()
  y = Mul(t, big)
  u = Transpose(x)
  i = Constant <value = int64[2] {1, 0}> ()
  g = Gather(u, i)
  k = Concat <axis = 0> (u, g)
  z = Relu(k)
  w = If(b) <
    then_branch = tb () => (float[8,4] ot) { tt = Transpose(tiny)  ot = Mul(tt, big) },
    else_branch = eb () => (float[8,4] oe) { oe = Transpose(x) }>
}
)",
                   "fp16", true, 4);
  expect_checked(c.report, 1e-2);
  EXPECT_EQ(elem(c.model, "t"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "tt"), ir::DataType::kFloat);
  EXPECT_EQ(elem(c.model, "g"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "k"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(c.model, "u"), ir::DataType::kFloat);  // a graph output keeps its type
  EXPECT_EQ(producer(c.model, "u")->op_type, "Cast");   // computed in float16
  std::set<std::string> tiny_copies;
  for (const auto& k : c.report.conversion.kept) {
    if (k.reason.find("its error in float16 is 1 ") != std::string::npos) tiny_copies.insert(k.node);
    for (const char* op : {"(Gather)", "(Concat)"}) EXPECT_EQ(k.node.find(op), std::string::npos) << k.reason;
  }
  EXPECT_EQ(tiny_copies,
            (std::set<std::string>{"producing tiny (Mul)", "producing t (Transpose)", "producing tt (Transpose)"}))
      << c.report.to_text();
}

// Must not fire: a model without float computation is left as it was.
TEST(ConvertFloat, IntegerModelIsUntouched) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64[2,3] a, int64[2,3] b) => (int64[2,3] y) {
  s = Add(a, b)
  y = Mul(s, a)
}
)";
  Model before = Model::parse_text(text);
  Options o;
  Report r0 = simplify(before, o);
  auto c = convert(text, "fp16");
  EXPECT_EQ(c.report.conversion.converted_nodes, 0);
  EXPECT_EQ(c.report.conversion.casts_added, 0);
  EXPECT_EQ(c.model.to_text(), before.to_text());
}

// Graph outputs: keep_io_types keeps their names and types; without it they take the new type
// (and so do the inputs: the check casts its float32 inputs for the converted model).
TEST(ConvertFloat, GraphOutputsWithAndWithoutKeepIoTypes) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x, float[8,4] w) => (float[2,4] y, float[2,8] r) {
  y = MatMul(x, w)
  r = Relu(x)
}
)";
  auto kept = convert(text, "fp16");
  expect_checked(kept.report, 1e-2);
  EXPECT_EQ(elem(kept.model, "y"), ir::DataType::kFloat);
  EXPECT_EQ(elem(kept.model, "r"), ir::DataType::kFloat);
  EXPECT_EQ(elem(kept.model, "x"), ir::DataType::kFloat);
  EXPECT_EQ(kept.model.output_names(), (std::vector<std::string>{"y", "r"}));
  auto open = convert(text, "fp16", false);
  expect_checked(open.report, 1e-2);
  EXPECT_EQ(elem(open.model, "y"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(open.model, "x"), ir::DataType::kFloat16);
  EXPECT_EQ(count(open.model, "Cast"), 0u);
}

const char* kSmallNet = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,3,8,8] x) => (float[1,4] y) {
  w = Constant <value = float[4,3,3,3] {0.1,-0.2,0.3,0.1,0.2,-0.1,0.05,0.1,0.2, 0.3,0.1,-0.2,0.2,0.1,0.1,-0.3,0.2,0.1, 0.1,0.1,0.1,0.2,-0.2,0.2,0.3,0.1,-0.1, -0.1,0.2,0.1,0.1,0.3,0.2,0.1,-0.1,0.2, 0.2,0.1,0.3,-0.1,0.1,0.2,0.1,0.2,0.1, 0.1,-0.3,0.2,0.2,0.1,0.1,0.3,0.1,0.2, 0.2,0.2,-0.1,0.1,0.1,0.3,0.1,0.2,0.1, 0.1,0.1,0.2,0.3,-0.2,0.1,0.2,0.1,0.1, 0.3,0.2,0.1,0.1,0.1,-0.2,0.2,0.1,0.3, 0.1,0.2,0.2,-0.1,0.3,0.1,0.1,0.2,0.1, 0.2,0.1,0.1,0.2,0.2,0.1,-0.3,0.1,0.2, 0.1,0.3,0.2,0.1,0.1,0.2,0.1,-0.2,0.1}> ()
  b = Constant <value = float[4] {0.1, -0.1, 0.2, 0}> ()
  c = Conv <pads = [1, 1, 1, 1]> (x, w, b)
  r = Relu(c)
  p = GlobalAveragePool(r)
  s = Constant <value = int64[2] {1, 4}> ()
  f = Reshape(p, s)
  y = Softmax <axis = 1> (f)
}
)";

// Converting twice changes nothing; converting back to float32 gives float32 everywhere.
TEST(ConvertFloat, IdempotentAndBackToFloat32) {
  auto once = convert(kSmallNet, "fp16");
  expect_checked(once.report, 1e-2);
  EXPECT_EQ(elem(once.model, "c"), ir::DataType::kFloat16);
  std::string first = once.model.to_text();
  auto twice = convert("", "fp16", true, 1, &once.model);
  EXPECT_EQ(twice.report.conversion.converted_nodes, 0);
  EXPECT_EQ(twice.report.conversion.casts_added, 0);
  EXPECT_EQ(twice.report.conversion.initializers_converted, 0);
  EXPECT_EQ(twice.model.to_text(), first);
  auto back = convert("", "fp32", true, 1, &once.model);
  expect_checked(back.report, 1e-2);
  EXPECT_EQ(count(back.model, "Cast"), 0u) << back.model.to_text();
  std::function<bool(const ir::Graph&)> any16 = [&](const ir::Graph& g) {
    bool f = false;
    for (const ir::Value* v : g.initializers()) f |= v->type.elem == ir::DataType::kFloat16;
    g.for_each_node([&](const ir::Node* n) {
      for (const ir::Value* v : n->outputs()) f |= v && v->type.elem == ir::DataType::kFloat16;
    });
    return f;
  };
  EXPECT_FALSE(any16(*api::ir_model(back.model).graph)) << back.model.to_text();
}

// Back to float32 nothing stays behind: the Casts that fed float16 readers from float32 shape
// arithmetic become no-ops and go.
TEST(ConvertFloat, BackToFloat32LeavesNoShapeArithmeticCast) {
  auto once = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,D] x) => (float[N,D] y) {
  s = Shape(x)
  k = Constant <value = int64 {1}> ()
  d = Gather(s, k)
  f = Cast <to = 1> (d)
  r = Sqrt(f)
  y = Div(x, r)
}
)",
                      "fp16");
  expect_checked(once.report, 1e-2);
  EXPECT_EQ(elem(once.model, "r"), ir::DataType::kFloat);
  auto back = convert("", "fp32", true, 1, &once.model);
  expect_checked(back.report, 1e-2);
  EXPECT_TRUE(back.report.conversion.kept.empty()) << back.report.to_text();
  EXPECT_EQ(count(back.model, "Cast"), 1u) << back.model.to_text();  // the shape's Cast to float
}

// bfloat16: Conv has no bfloat16 before opset 22 (it stays float32, and the report says so);
// at opset 22 it converts.
TEST(ConvertFloat, Bfloat16FollowsTheOpsetsTypes) {
  auto old = convert(kSmallNet, "bf16");
  expect_checked(old.report, 5e-2);
  EXPECT_EQ(elem(old.model, "c"), ir::DataType::kFloat);
  bool said = false;
  for (const auto& k : old.report.conversion.kept)
    said |= k.reason.find("Conv-11 has no bfloat16") != std::string::npos;
  EXPECT_TRUE(said) << old.report.to_text();
  std::string v22 = kSmallNet;
  v22.replace(v22.find("\"\" : 17"), 7, "\"\" : 22");
  auto now = convert(v22, "bf16");
  expect_checked(now.report, 5e-2);
  EXPECT_EQ(elem(now.model, "c"), ir::DataType::kBFloat16);
}

// The report says what was converted and what stayed, in text and JSON.
TEST(ConvertFloat, ReportNamesKeptNodes) {
  auto c = convert(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y) {
  big = Constant <value = float {100000}> ()
  a = Mul(x, big)
  y = Div(a, big)
}
)",
                   "fp16");
  std::string text = c.report.to_text();
  std::string json = c.report.to_json();
  EXPECT_NE(text.find("kept in float32"), std::string::npos) << text;
  EXPECT_NE(text.find("relative L2"), std::string::npos) << text;
  EXPECT_NE(json.find("\"kept_fp32\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"rel_l2\""), std::string::npos) << json;
}

// An operator of another domain stays float32, and so does what reads its output (whose type
// nothing knows); the check is skipped (the evaluator has no kernel), which the report says.
TEST(ConvertFloat, CustomDomainStaysFloat32) {
  Model m = Model::parse_text(R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
  g = com.example.Gelu(x)
  y = Relu(g)
  z = Sigmoid(x)
}
)");
  Options o;
  o.dtype = "fp16";
  Report r = simplify(m, o);
  EXPECT_FALSE(r.verification.ran);
  EXPECT_FALSE(r.conversion.ranges_observed);
  bool custom = false;
  for (const auto& k : r.conversion.kept) custom |= k.reason.find("domain 'com.example'") != std::string::npos;
  EXPECT_TRUE(custom) << r.to_text();
  EXPECT_EQ(elem(m, "z"), ir::DataType::kFloat);
  const ir::Node* sig = producer(m, "z");
  ASSERT_NE(sig, nullptr);
  // Sigmoid computes in float16 behind a Cast: the output keeps its name and type.
  EXPECT_EQ(sig->op_type, "Cast");
}

// A local function whose body reads the call's attributes runs as an instance the evaluator
// makes per call and frees after the run: what the conversion observed of the instance's nodes
// is not kept (their addresses would be read after the free; the sanitizer run catches that).
TEST(ConvertFloat, FunctionInstancesAreNotObserved) {
  Model m = Model::parse_text(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2,3] x) => (float[2,3] y) {
  a = local.Leaky<alpha = 0.2>(x)
  y = local.Leaky<alpha = 0.3>(a)
}
<domain: "local", opset_import: ["" : 18]>
Leaky <alpha> (x) => (y) {
  t = LeakyRelu<alpha: float = @alpha>(x)
  y = Sigmoid(t)
}
)");
  Options o;
  o.dtype = "fp16";
  o.verify = Options::Verify::kOn;
  Report r = simplify(m, o);
  expect_checked(r, 1e-2);
  EXPECT_TRUE(r.conversion.ranges_observed);
  EXPECT_EQ(elem(m, "y"), ir::DataType::kFloat);  // keep_io_types
}

// --no-passes: only the conversion changes the model (shape inference gives it the types).
TEST(ConvertFloat, NoPassesStillConverts) {
  Model m = Model::parse_text(kSmallNet);
  Options o;
  o.dtype = "fp16";
  o.run_passes = false;
  o.verify = Options::Verify::kOn;
  Report r = simplify(m, o);
  expect_checked(r, 1e-2);
  EXPECT_EQ(elem(m, "c"), ir::DataType::kFloat16);
  EXPECT_EQ(count(m, "Constant"), 3u);  // nothing folded: Constant nodes converted in place
  EXPECT_EQ(elem(m, "w"), ir::DataType::kFloat16);
  EXPECT_EQ(elem(m, "s"), ir::DataType::kInt64);
}

TEST(ConvertFloat, OptionTable) {
  Options o;
  o.set("dtype", "bf16");
  EXPECT_EQ(o.dtype, "bf16");
  o.set("no-keep-io-types");
  EXPECT_FALSE(o.keep_io_types);
  o.set("keep_io_types", "true");
  EXPECT_TRUE(o.keep_io_types);
  EXPECT_THROW(o.set("dtype", "int8"), Error);
}

}  // namespace
}  // namespace onnxtrim
