// Facts that always hold (a dim is never negative, Shape has the rank as length, Size is the
// product of the dims) and their propagation through comparisons, logic, selections, Max/Min,
// Abs/Neg, Cast, Mod, Range, Expand/Tile/Split, in the main graph and in subgraphs; and what
// the passes make of them.
#include <gtest/gtest.h>

#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using symbolic::Expr;
using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

struct Inferred {
  std::unique_ptr<ir::Model> model;
  std::unique_ptr<passes::ShapeInference> si;
  const ops::TypeInfo* facts(const std::string& name) const {
    const ir::Value* v = model->graph->lookup(name);
    return v ? si->facts(v) : nullptr;
  }
  std::string values(const std::string& name) const {
    const ops::TypeInfo* f = facts(name);
    if (!f || !f->values) return "none";
    std::string s;
    for (const Expr& e : *f->values) s += (s.empty() ? "" : ",") + e.str();
    return s;
  }
  std::string shape(const std::string& name) const {
    const ops::TypeInfo* f = facts(name);
    if (!f || !f->shape) return "unranked";
    std::string s;
    for (const Expr& e : *f->shape) s += (s.empty() ? "" : ",") + (e.is_fresh() ? std::string("?") : e.str());
    return s;
  }
};

Inferred infer(const char* text) {
  Inferred r;
  r.model = test::parse(text);
  EXPECT_TRUE(r.model);
  r.si = std::make_unique<passes::ShapeInference>(*r.model);
  EXPECT_TRUE(r.si->run().is_ok());
  return r;
}

// torch's x.expand(B, -1, -1): Concat(B, -1, -1) -> Equal(., -1) -> Where(., 1, .) -> Expand.
const char* kClassTokenExpand = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,4,8] x) => (float[batch,5,8] y) {
  cls = Constant <value = float[1,1,8] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  s = Shape(x)
  i0 = Constant <value = int64 {0}> ()
  b = Gather <axis = 0> (s, i0)
  ax = Constant <value = int64[1] {0}> ()
  bu = Unsqueeze(b, ax)
  m1 = Constant <value = int64[1] {-1}> ()
  want = Concat <axis = 0> (bu, m1, m1)
  minus = Constant <value = int64[3] {-1, -1, -1}> ()
  eq = Equal(want, minus)
  ones = Constant <value = int64[3] {1, 1, 1}> ()
  target = Where(eq, ones, want)
  e = Expand(cls, target)
  y = Concat <axis = 1> (e, x)
}
)";

TEST(Facts, ComparisonAndWherePropagateThroughTheClassTokenExpand) {
  auto r = infer(kClassTokenExpand);
  EXPECT_EQ(r.values("eq"), "0,1,1");  // batch is never -1
  EXPECT_EQ(r.values("target"), "batch,1,1");
  EXPECT_EQ(r.shape("e"), "batch,1,8");
  EXPECT_EQ(r.shape("y"), "batch,5,8");
}

TEST(Facts, ClassTokenExpandKeepsOnlyWhatReadsTheBatch) {
  auto s = simplify_text(kClassTokenExpand);
  // Equal folds (it is [false, true, true] whatever the batch); what stays reads the batch.
  EXPECT_EQ(count_ops(*s.model->graph, "Equal"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "Expand"), 1u);
  EXPECT_EQ(s.model->graph->outputs()[0]->type.str(), "float[batch,5,8]");
  expect_same_outputs(s, 2, {{"batch", 3}});
}

TEST(Facts, ExpandRankComesFromTheShapeInputsLength) {
  auto r = infer(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, int64[3] s, int64[2] t) => (float[a,b,c] y, float[p,q] z) {
  y = Expand(x, s)
  z = Tile(x, t)
}
)");
  // Shape elements unknown: the dims of x known > 1 stay (the shape's must be 1 or equal), the
  // new leading one is unknown.
  EXPECT_EQ(r.shape("y"), "?,2,3");
  EXPECT_EQ(r.shape("z"), "?,?");
}

TEST(Facts, LogicMaxMinAbsNegModCastOnShapeValues) {
  auto r = infer(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,6] x) => (bool[2] both, int64[2] mx, int64[2] mn, int64[2] ab, int64[2] ng, int64[2] md, int32[2] c32, uint8[1] c8, bool[2] cb, int64[2] dv) {
  s = Shape(x)
  zero = Constant <value = int64 {0}> ()
  big = Constant <value = int64 {6}> ()
  ge = GreaterOrEqual(s, zero)
  lt = Less(s, big)
  notlt = Not(lt)
  both = Or(ge, notlt)
  one = Constant <value = int64 {1}> ()
  mx = Max(s, one)
  mn = Min(s, zero)
  neg = Neg(s)
  ab = Abs(neg)
  ng = Neg(s)
  four = Constant <value = int64 {4}> ()
  md = Mod(s, four)
  c32 = Cast <to = 6> (s)
  m1 = Constant <value = int64[1] {-1}> ()
  c8 = Cast <to = 2> (m1)
  cb = Cast <to = 9> (s)
  two = Constant <value = int64 {2}> ()
  dv = Div(s, two)
}
)");
  EXPECT_EQ(r.values("ge"), "1,1");   // dims are never negative
  EXPECT_EQ(r.values("lt"), "none");  // n < 6 is not known; 6 < 6 is, but not n
  EXPECT_EQ(r.values("both"), "1,1");
  EXPECT_EQ(r.values("mx"), "max(n, 1),6");
  EXPECT_EQ(r.values("mn"), "0,0");
  EXPECT_EQ(r.values("ab"), "n,6");
  EXPECT_EQ(r.values("ng"), "-n,-6");
  EXPECT_EQ(r.values("md"), "mod(n, 4),2");
  EXPECT_EQ(r.values("c32"), "n,6");
  EXPECT_EQ(r.values("c8"), "255");   // wraps as the kernel does
  EXPECT_EQ(r.values("cb"), "none");  // n != 0 is not known
  EXPECT_EQ(r.values("dv"), "floor(n / 2),3");
}

TEST(Facts, RangeLengthAndElements) {
  auto r = infer(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,5] x) => (int64[n] a, int64[m] b, int64[3] c) {
  s = Shape(x)
  i0 = Constant <value = int64 {0}> ()
  i1 = Constant <value = int64 {1}> ()
  nn = Gather <axis = 0> (s, i0)
  five = Gather <axis = 0> (s, i1)
  zero = Constant <value = int64 {0}> ()
  step = Constant <value = int64 {1}> ()
  a = Range(zero, nn, step)
  two = Constant <value = int64 {2}> ()
  b = Range(five, nn, two)
  three = Constant <value = int64 {3}> ()
  lim = Add(nn, three)
  c = Range(nn, lim, step)
}
)");
  EXPECT_EQ(r.shape("a"), "n");  // Range(0, n, 1): the max with 0 goes, n is never negative
  EXPECT_EQ(r.shape("b"), "max(0, floor((n - 4) / 2))");
  EXPECT_EQ(r.shape("c"), "3");
  EXPECT_EQ(r.values("c"), "n,n + 1,n + 2");
}

TEST(Facts, ExpandSplitConcatOfValues) {
  // torch's repeat_interleave with constant repeats: Expand(4, [5]) -> Split -> Concat.
  auto r = infer(R"(
<ir_version: 8, opset_import: ["" : 11]>
g (float[b,3,5] x) => (int64[3] c) {
  four = Constant <value = int64 {4}> ()
  n = Constant <value = int64[1] {5}> ()
  e = Expand(four, n)
  p0, p1, p2, p3, p4 = Split <axis = 0, split = [1, 1, 1, 1, 1]> (e)
  head = Constant <value = int64[2] {-1, 3}> ()
  c = Concat <axis = 0> (head, p2)
}
)");
  EXPECT_EQ(r.values("e"), "4,4,4,4,4");
  EXPECT_EQ(r.values("p3"), "4");
  EXPECT_EQ(r.values("c"), "-1,3,4");
}

// torch's F.pad with pads computed from the input's shape (swin's windows: (7 - W % 7) % 7):
// the pads pass through a [n, 2] Reshape, a reversing Slice and a Transpose, whose rules know
// no values past rank 1. Those nodes' inputs are known constants, so they are evaluated: the
// pads and the padded shape are known at the first inference, not after a round of folding.
TEST(Facts, TorchPadsThroughRankTwoAreKnown) {
  auto r = infer(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[b,10,12] x) => (float[b,?,?] y) {
  s = Shape(x)
  i2 = Constant <value = int64 {2}> ()
  w = Gather <axis = 0> (s, i2)
  seven = Constant <value = int64 {7}> ()
  m = Mod(w, seven)
  d = Sub(seven, m)
  p = Mod(d, seven)
  ax = Constant <value = int64[1] {0}> ()
  pu = Unsqueeze(p, ax)
  z1 = Constant <value = int64[1] {0}> ()
  z4 = Constant <value = int64[4] {0, 0, 0, 0}> ()
  flat = Concat <axis = 0> (z1, pu, z4)
  shp = Constant <value = int64[2] {-1, 2}> ()
  pairs = Reshape(flat, shp)
  st = Constant <value = int64[1] {-1}> ()
  en = Constant <value = int64[1] {-9223372036854775807}> ()
  a0 = Constant <value = int64[1] {0}> ()
  step = Constant <value = int64[1] {-1}> ()
  rev = Slice(pairs, st, en, a0, step)
  tr = Transpose <perm = [1, 0]> (rev)
  one = Constant <value = int64[1] {-1}> ()
  pads = Reshape(tr, one)
  y = Pad(x, pads)
}
)");
  EXPECT_EQ(r.values("pairs"), "0,2,0,0,0,0");  // torch's order: last axis first
  EXPECT_EQ(r.values("tr"), "0,0,0,0,0,2");
  EXPECT_EQ(r.values("pads"), "0,0,0,0,0,2");
  EXPECT_EQ(r.shape("y"), "b,10,14");
  // Not evaluated: a rank-2 tensor with an unknown element, and one past 64 elements.
  auto q = infer(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[b,10,12,3] x) => (int64[2,2] sh, int64[2,40] big, int64[2,2] k2, int64[2] ki) {
  k2 = Constant <value = int64[2,2] {1, 2, 3, 4}> ()
  ki = Constant <value_ints = [5, 6]> ()
  s = Shape(x)
  two = Constant <value = int64[2] {-1, 2}> ()
  sh = Reshape(s, two)
  r = Constant <value = int64[1] {80}> ()
  o = ConstantOfShape <value = int64[1] {1}> (r)
  shp = Constant <value = int64[2] {2, 40}> ()
  big = Reshape(o, shp)
}
)");
  EXPECT_EQ(q.values("sh"), "none");
  EXPECT_EQ(q.shape("sh"), "2,2");
  EXPECT_EQ(q.values("big"), "none");
  // Constants give their elements at any rank, in whichever attribute they are.
  EXPECT_EQ(q.values("k2"), "1,2,3,4");
  EXPECT_EQ(q.values("ki"), "5,6");
}

TEST(Facts, ShapeLengthIsTheRankAndSizeTheProduct) {
  auto r = infer(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,m,4] x) => (int64[1] rank, int64 size, bool pos) {
  s = Shape(x)
  rank = Shape(s)
  size = Size(x)
  zero = Constant <value = int64 {0}> ()
  pos = GreaterOrEqual(size, zero)
}
)");
  EXPECT_EQ(r.values("rank"), "3");
  EXPECT_EQ(r.values("size"), "4*m*n");
  EXPECT_EQ(r.values("pos"), "1");
}

// Outer-scope facts decide conditions inside branches; Constant nodes there become
// initializers like in the main graph.
TEST(Facts, RankDecidedIfsInsideBranchesGo) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,4] x, int64 sr) => (float[n,4] y) {
  k = Constant <value = int64 {16000}> ()
  is16 = Equal(sr, k)
  y = If(is16) <then_branch = g1 () => (float[n,4] y1) {
      s = Shape(x)
      r = Size(s)
      two = Constant <value = int64 {2}> ()
      is2 = Equal(r, two)
      w = Constant <value = float[4,4] {1,0,0,0, 0,2,0,0, 0,0,3,0, 0,0,0,4}> ()
      t = If(is2) <then_branch = g2 () => (float[n,4] a) { a = Identity(x) },
                   else_branch = g3 () => (float[n,4] b) { z = Constant <value = int64[1] {0}> ()
                                                           b = Unsqueeze(x, z) }>
      y1 = MatMul(t, w)
    }, else_branch = g4 () => (float[n,4] y2) {
      sz = Size(x)
      zero = Constant <value = int64 {0}> ()
      neg = Less(sz, zero)
      y2 = If(neg) <then_branch = g5 () => (float[n,4] c) { c = Neg(x) },
                    else_branch = g6 () => (float[n,4] d) { d = Identity(x) }>
    }>
}
)");
  // Only the If on the sample rate stays; nothing in its branches is decided at run time.
  EXPECT_EQ(count_ops(*s.model->graph, "If"), 1u);
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type != "If") return;
    for (const ir::Graph* b : n->subgraphs()) {
      EXPECT_EQ(count_ops(*b, "If"), 0u);
      EXPECT_EQ(count_ops(*b, "Constant"), 0u);
      EXPECT_EQ(count_ops(*b, "Equal") + count_ops(*b, "Less") + count_ops(*b, "Size"), 0u);
    }
  });
  expect_same_outputs(s, 2, {{"n", 3}});
}

TEST(Facts, InferenceEvaluatesNodesOfKnownInputs) {
  // Unique's output length is data-dependent, but its input is a constant: inference runs it.
  auto m = test::parse(R"(<ir_version: 10, opset_import: ["" : 17]>
g () => (int64[N] y) {
  c = Constant<value = int64[5] {3, 1, 3, 2, 1}>()
  y = Unique(c)
})");
  ASSERT_TRUE(m);
  passes::InferOptions io;
  io.use_declared = false;
  passes::ShapeInference si(*m, io);
  ASSERT_TRUE(si.run().is_ok());
  const ops::TypeInfo* f = si.facts(m->graph->outputs()[0]);
  ASSERT_TRUE(f && f->static_shape());
  EXPECT_EQ(*f->static_shape(), (std::vector<int64_t>{3}));
}

}  // namespace
}  // namespace onnxtrim
