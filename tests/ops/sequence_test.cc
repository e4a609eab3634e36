// Shape rules of SplitToSequence and SequenceAt (issue 16: WaveRNN's repeat_interleave over a
// dim torch cannot size is SplitToSequence -> Loop(SequenceAt ...) -> ConcatFromSequence):
// elements keep the input's rank and dims off the axis; the axis dim is claimed only when every
// element has it; SequenceAt never shares an unknown between the values it reads. Each rule is
// checked against what the evaluator computes.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "eval/interpreter.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"

namespace onnxtrim {
namespace {

using Shape = std::vector<int64_t>;

std::string shape_str(const std::optional<ops::SymShape>& s) {
  if (!s) return "?";
  std::string out = "[";
  for (size_t k = 0; k < s->size(); ++k) out += (k ? "," : "") + (*s)[k].str();
  return out + "]";
}

struct Inferred {
  std::unique_ptr<ir::Model> model;
  std::unique_ptr<passes::ShapeInference> si;
  // The shape of value `name`; for a sequence, of its elements.
  std::string of(const std::string& name) const {
    const ops::TypeInfo* f = si->facts(model->graph->find_value(name));
    if (!f) return "none";
    if (f->kind == ir::Type::Kind::kSequence) return f->inner ? "seq" + shape_str(f->inner->shape) : "seq?";
    return shape_str(f->shape);
  }
  // The dims of value `name` (none when its rank is unknown).
  ops::SymShape shape(const std::string& name) const {
    const ops::TypeInfo* f = si->facts(model->graph->find_value(name));
    return f && f->shape ? *f->shape : ops::SymShape{};
  }
};

Inferred infer(const std::string& text) {
  Inferred r;
  r.model = test::parse(text);
  EXPECT_TRUE(r.model);
  passes::InferOptions io;
  io.use_declared = false;
  r.si = std::make_unique<passes::ShapeInference>(*r.model, io);
  EXPECT_TRUE(r.si->run().is_ok());
  return r;
}

// The dims the evaluator gives each graph output, for x of shape `dims` (floats).
std::vector<Shape> run_dims(const std::string& text, const Shape& dims) {
  auto m = test::parse(text);
  EXPECT_TRUE(m);
  eval::Interpreter interp(*m);
  ir::Tensor x(ir::DataType::kFloat, dims);
  auto r = interp.run({{"x", ir::RuntimeValue::of(x)}});
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  std::vector<Shape> out;
  if (r.is_ok())
    for (const auto& v : r.value()) out.push_back(v.tensor.dims());
  return out;
}

TEST(SplitToSequence, WithoutSplitTheAxisIsOneOrDropped) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]> g (float[b,3,4] x) => (float[?,?,?] p, float[?,?] q) {
    s = SplitToSequence<axis = 1>(x)
    t = SplitToSequence<axis = -2, keepdims = 0>(x)
    i = Constant<value = int64 {2}>()
    p = SequenceAt(s, i)
    q = SequenceAt(t, i)
  })";
  auto r = infer(text);
  EXPECT_EQ(r.of("s"), "seq[b,1,4]");
  EXPECT_EQ(r.of("t"), "seq[b,4]");
  EXPECT_EQ(r.of("p"), "[b,1,4]");
  EXPECT_EQ(r.of("q"), "[b,4]");
  EXPECT_EQ(run_dims(text, {2, 3, 4}), (std::vector<Shape>{{2, 1, 4}, {2, 4}}));
}

TEST(SplitToSequence, EqualPartsClaimTheirSize) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]> g (float[6,b] x) => (float[?,?] p, float[?,?] q) {
    two = Constant<value = int64 {2}>()
    s = SplitToSequence<axis = 0>(x, two)
    sizes = Constant<value = int64[3] {2, 2, 2}>()
    t = SplitToSequence<axis = 0>(x, sizes)
    i = Constant<value = int64 {1}>()
    p = SequenceAt(s, i)
    q = SequenceAt(t, i)
  })";
  auto r = infer(text);
  EXPECT_EQ(r.of("s"), "seq[2,b]");
  EXPECT_EQ(r.of("t"), "seq[2,b]");
  EXPECT_EQ(r.of("p"), "[2,b]");
  EXPECT_EQ(run_dims(text, {6, 5}), (std::vector<Shape>{{2, 5}, {2, 5}}));
}

TEST(SplitToSequence, UnequalPartsLeaveTheAxisUnknownPerValue) {
  // 6 in parts of 4 (4, 2) and in parts 1, 2, 3: the elements differ along the axis, so two
  // SequenceAt values are not proved equal there (their dims off the axis still are).
  const char* text =
      R"(<ir_version: 8, opset_import: ["" : 17]> g (float[6,b] x) => (float[?,?] p0, float[?,?] p1, float[?,?] q0, float[?,?] q2) {
    four = Constant<value = int64 {4}>()
    s = SplitToSequence<axis = 0>(x, four)
    sizes = Constant<value = int64[3] {1, 2, 3}>()
    t = SplitToSequence<axis = 0>(x, sizes)
    i0 = Constant<value = int64 {0}>()
    i1 = Constant<value = int64 {1}>()
    i2 = Constant<value = int64 {2}>()
    p0 = SequenceAt(s, i0)
    p1 = SequenceAt(s, i1)
    q0 = SequenceAt(t, i0)
    q2 = SequenceAt(t, i2)
  })";
  auto r = infer(text);
  for (const char* v : {"p0", "p1", "q0", "q2"}) {
    ASSERT_EQ(r.shape(v).size(), 2u) << v;
    EXPECT_FALSE(r.shape(v)[0].constant_value()) << v;
    EXPECT_EQ(r.shape(v)[1].str(), "b") << v;
  }
  EXPECT_FALSE(r.shape("p0")[0] == r.shape("p1")[0]);
  EXPECT_FALSE(r.shape("q0")[0] == r.shape("q2")[0]);
  EXPECT_EQ(run_dims(text, {6, 5}), (std::vector<Shape>{{4, 5}, {2, 5}, {1, 5}, {3, 5}}));
}

TEST(SplitToSequence, InsideALoopBodyReadingTheOuterSequence) {
  // WaveRNN's form: the Loop body reads one element of an outer sequence per iteration.
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]> g (float[b,3,4] x) => (float[?,?,?,?] y) {
    s = SplitToSequence<axis = 1>(x)
    n = Constant<value = int64 {3}>()
    t = Constant<value = bool {1}>()
    y = Loop(n, t) <body = lb (int64 i, bool c) => (bool c2, float[] twice) {
      part = SequenceAt(s, i)
      twice = Concat<axis = 1>(part, part)
      c2 = Identity(c)
    }>
  })";
  auto r = infer(text);
  const ir::Graph* body = nullptr;
  r.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Loop") body = n->subgraphs()[0];
  });
  ASSERT_TRUE(body);
  const ops::TypeInfo* part = r.si->facts(body->find_value("part"));
  const ops::TypeInfo* twice = r.si->facts(body->find_value("twice"));
  ASSERT_TRUE(part && twice);
  EXPECT_EQ(shape_str(part->shape), "[b,1,4]");
  EXPECT_EQ(shape_str(twice->shape), "[b,2,4]");
  EXPECT_EQ(run_dims(text, {2, 3, 4}), (std::vector<Shape>{{3, 2, 2, 4}}));
  ASSERT_EQ(r.shape("y").size(), 4u);  // the trip count: not claimed by Loop's rule
  EXPECT_EQ(r.shape("y")[1].str() + "," + r.shape("y")[2].str() + "," + r.shape("y")[3].str(), "b,2,4");
}

}  // namespace
}  // namespace onnxtrim
