// The cone policy of fold_constants: whole constant computations judged by the tensors they
// leave behind, within the fold budget; large splats stay generators; the node-by-node guard
// when a cone does not fit.
#include <gtest/gtest.h>

#include "ops/kernel_util.h"
#include "passes/folding_policy.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;

test::Simplified run_folding(const char* text, int64_t budget = -1, std::vector<std::string> only = {}) {
  test::Simplified s;
  s.model = test::parse(text);
  EXPECT_TRUE(s.model);
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.only = std::move(only);
  o.verify_ir = true;
  o.fail_on_cap = true;
  o.fold_budget = budget;
  auto r = passes::simplify(*s.model, o);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (r) s.result = r.value();
  s.printed = ir::print_graph(*s.model->graph);
  return s;
}

uint64_t largest_initializer(const ir::Graph& g) {
  uint64_t m = 0;
  for (const ir::Value* v : g.initializers()) m = std::max<uint64_t>(m, v->initializer()->byte_size());
  return m;
}

// Swin's shifted-window mask: a large splat, regions written with ScatterND, compared and
// selected into -100/0; only the mask is left behind.
const char* kWindowMask = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,16,16] scores) => (float[4,16,16] y) {
  shape = Constant <value = int64[3] {4, 16, 16}> ()
  zeros = ConstantOfShape <value = float[1] {0}> (shape)
  idx = Constant <value = int64[2,1] {1, 3}> ()
  upd = Constant <value = float[2,16,16] {
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3}> ()
  regions = ScatterND(zeros, idx, upd)
  one = Constant <value = float {1}> ()
  diff = Sub(regions, one)
  zero = Constant <value = float {0}> ()
  same = Equal(diff, zero)
  other = Not(same)
  minus = Constant <value = float {-100}> ()
  mask = Where(other, minus, zero)
  y = Add(scores, mask)
}
)";

TEST(ConePolicy, WholeConstantComputationLeavesOnlyItsResult) {
  auto s = run_folding(kWindowMask);
  EXPECT_EQ(s.nodes(), 1u);  // the Add
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "ScatterND"), 0u);
  // The mask: -100 where regions != 1 (windows 0 and 2 everywhere, the last rows of 1 and 3).
  const ir::Node* add = s.model->graph->first_node();
  ASSERT_TRUE(add && add->input(1)->is_initializer());
  const ir::Tensor& mask = *add->input(1)->initializer();
  ASSERT_EQ(mask.dims(), (std::vector<int64_t>{4, 16, 16}));
  auto m = mask.to_vector<float>();
  EXPECT_EQ(m[0], -100.0f);
  EXPECT_EQ(m[256], 0.0f);           // window 1, row 0
  EXPECT_EQ(m[256 + 255], -100.0f);  // window 1, last row is 2
  EXPECT_EQ(m[2 * 256 + 7], -100.0f);
  EXPECT_EQ(m[3 * 256], 0.0f);
  EXPECT_EQ(m[3 * 256 + 255], -100.0f);
  expect_same_outputs(s);
}

TEST(ConePolicy, ConeOverTheBudgetFallsBackToTheNodeGuard) {
  // With no budget, the 4 KiB mask may not be added: node by node, the large splat stays a
  // generator and everything behind it stays.
  auto s = run_folding(kWindowMask, 0);
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape"), 1u);
  EXPECT_EQ(count_ops(*s.model->graph, "ScatterND"), 1u);
  expect_same_outputs(s);
}

TEST(ConePolicy, LargeSplatLeftBehindStaysOneGenerator) {
  // ConstantOfShape -> Mul -> Add(x, .): the splat 2.0 over 64x64 is not stored; one
  // ConstantOfShape of value 2 replaces the two nodes.
  auto s = run_folding(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[64,64] x) => (float[64,64] y) {
  shape = Constant <value = int64[2] {64, 64}> ()
  ones = ConstantOfShape <value = float[1] {1}> (shape)
  two = Constant <value = float {2}> ()
  twos = Mul(ones, two)
  y = Add(x, twos)
}
)",
                       -1, {"fold_constants", "eliminate_dead_nodes", "eliminate_unused_initializers"});
  EXPECT_EQ(count_ops(*s.model->graph, "Mul"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape"), 1u);
  EXPECT_LE(largest_initializer(*s.model->graph), passes::kTinyBytes);
  s.model->graph->for_each_node([](const ir::Node* n) {
    if (n->op_type != "ConstantOfShape") return;
    const ir::Attribute* a = n->attr("value");
    ASSERT_TRUE(a && a->t);
    EXPECT_EQ(a->t->to_vector<float>(), std::vector<float>{2.0f});
  });
  expect_same_outputs(s);
}

TEST(ConePolicy, CopyOfAStoredSplatIsNoGenerator) {
  // torch shares a 0 bias through Identity: the copy folds (and is merged with its source)
  // instead of becoming a ConstantOfShape.
  auto s = run_folding(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,32] x) => (float[2,32] y, float[2,32] z) {
  b = Constant <value = float[32] {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}> ()
  y = Add(x, b)
  c = Identity(b)
  z = Sub(x, c)
}
)",
                       -1, {"fold_constants", "eliminate_duplicate_constants", "eliminate_dead_nodes"});
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "Identity"), 0u);
  EXPECT_EQ(s.nodes(), 2u);
  expect_same_outputs(s);
}

TEST(ConePolicy, GeneratorReadingTinyConstantsStaysAsItIs) {
  // The shape is computed (a Concat of constants): it folds; the generator stays untouched.
  auto s = run_folding(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[64,64] x) => (float[64,64] y) {
  a = Constant <value = int64[1] {64}> ()
  shape = Concat <axis = 0> (a, a)
  ones = ConstantOfShape <value = float[1] {1}> (shape)
  y = Sub(x, ones)
}
)",
                       -1, {"fold_constants"});
  EXPECT_EQ(count_ops(*s.model->graph, "Concat"), 0u);
  EXPECT_EQ(count_ops(*s.model->graph, "ConstantOfShape"), 1u);
  EXPECT_LE(largest_initializer(*s.model->graph), passes::kTinyBytes);
  expect_same_outputs(s);
}

TEST(ConePolicy, GrowthPastTheBudgetIsRefused) {
  // Range(0, 20000) from three scalars would add 160 KB: past the default budget of this tiny
  // model (64 KiB) and past the node guard's threshold; with a larger budget it folds.
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64[20000] x) => (int64[20000] y) {
  a = Constant <value = int64 {0}> ()
  b = Constant <value = int64 {20000}> ()
  c = Constant <value = int64 {1}> ()
  r = Range(a, b, c)
  y = Add(x, r)
}
)";
  auto kept = run_folding(text);
  EXPECT_EQ(count_ops(*kept.model->graph, "Range"), 1u);
  auto folded = run_folding(text, 1 << 20);
  EXPECT_EQ(count_ops(*folded.model->graph, "Range"), 0u);
  EXPECT_EQ(folded.nodes(), 1u);
  expect_same_outputs(folded);
}

TEST(ConePolicy, WeightTransformsFoldWhateverTheirSize) {
  // Transpose of a constant weight frees as many bytes as it makes: no budget needed.
  auto s = run_folding(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,4] y) {
  w = Constant <value = float[4,3] {1,2,3,4,5,6,7,8,9,10,11,12}> ()
  wt = Transpose <perm = [1, 0]> (w)
  y = MatMul(x, wt)
}
)",
                       0);
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 0u);
  EXPECT_EQ(s.nodes(), 1u);
  expect_same_outputs(s);
}

TEST(ConePolicy, ValueLeftBehindAsGraphOutputKeepsItsName) {
  auto s = run_folding(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y, float[3] k) {
  a = Constant <value = float[3] {1, 2, 3}> ()
  b = Constant <value = float {2}> ()
  k = Mul(a, b)
  y = Add(x, k)
}
)");
  ir::Value* k = s.model->graph->outputs()[1];
  EXPECT_EQ(k->name(), "k");
  ASSERT_TRUE(k->is_initializer());
  EXPECT_EQ(k->initializer()->to_vector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(s.nodes(), 1u);
}

TEST(ConePolicy, ConeInsideABranchReadingOuterConstants) {
  auto s = run_folding(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[64] x, bool c) => (float[64] y) {
  n = Constant <value = int64[1] {64}> ()
  y = If(c) <then_branch = t () => (float[64] a) {
      ones = ConstantOfShape <value = float[1] {1}> (n)
      idx = Constant <value = int64[1,1] {3}> ()
      v = Constant <value = float[1] {5}> ()
      s = ScatterND(ones, idx, v)
      a = Mul(x, s)
    }, else_branch = e () => (float[64] b) { b = Identity(x) }>
}
)");
  s.model->graph->for_each_node([](const ir::Node* n) {
    for (const ir::Graph* b : n->subgraphs()) {
      EXPECT_EQ(count_ops(*b, "ConstantOfShape"), 0u);
      EXPECT_EQ(count_ops(*b, "ScatterND"), 0u);
      EXPECT_EQ(count_ops(*b, "Constant"), 0u);
    }
  });
  expect_same_outputs(s);
}

TEST(ConePolicy, ConstantNodesBecomeInitializersWhateverTheirSize) {
  // paddle2onnx writes Conv weights as Constant nodes: they move to initializers (same bytes).
  std::string w = "";
  for (int i = 0; i < 8 * 4 * 3 * 3; ++i) w += (i ? "," : "") + std::to_string((i % 7) - 3);
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4,8,8] x) => (float[1,8,6,6] y) {
  w = Constant <value = float[8,4,3,3] {)" +
                     w + R"(}> ()
  y = Conv(x, w)
}
)";
  auto s = run_folding(text.c_str(), 0);
  EXPECT_EQ(count_ops(*s.model->graph, "Constant"), 0u);
  EXPECT_EQ(s.nodes(), 1u);
  expect_same_outputs(s);
}

// Issue 16, item 4: torch's repeat_interleave(4, dim=2) of x[b, 3, 16] at opset 11 (WaveRNN's
// upsampling). The constant repeats are written as Expand(4, [16]), a 128-byte splat, split
// into 16 scalars; each goes through Concat([-1, 3, 1], r, []) and the Equal/Where of torch's
// expand (-1 means keep) into the shape of one Expand of a slice of x. Every consumer of the
// splat folds to a tiny shape, so the whole cone folds: what is left is x's Split, and per
// slice Unsqueeze -> Expand to the constant [1, 3, 1, 4] -> Reshape, then the Concat.
TEST(ConePolicy, RepeatInterleaveWithConstantRepeatsFolds) {
  const int n = 16;
  std::string reps, slices, ones, body, cat;
  for (int k = 0; k < n; ++k) {
    std::string i = std::to_string(k);
    reps += (k ? ", r" : "r") + i;
    slices += (k ? ", x" : "x") + i;
    ones += k ? ", 1" : "1";
    cat += (k ? ", o" : "o") + i;
    body += "  u" + i + " = Unsqueeze <axes = [3]> (x" + i +
            ")\n"
            "  c" +
            i + " = Concat <axis = 0> (head, r" + i +
            ", tail)\n"
            "  cs" +
            i + " = Shape(c" + i +
            ")\n"
            "  one" +
            i + " = ConstantOfShape <value = int64[1] {1}> (cs" + i +
            ")\n"
            "  neg" +
            i + " = Mul(one" + i +
            ", minus)\n"
            "  keep" +
            i + " = Equal(c" + i + ", neg" + i +
            ")\n"
            "  size" +
            i + " = Where(keep" + i + ", one" + i + ", c" + i +
            ")\n"
            "  e" +
            i + " = Expand(u" + i + ", size" + i +
            ")\n"
            "  o" +
            i + " = Reshape(e" + i + ", flat)\n";
  }
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 11]>
g (float[b,3,16] x) => (float[b,3,64] y) {
  four = Constant <value = int64 {4}> ()
  count = Constant <value = int64[1] {16}> ()
  reps = Expand(four, count)
  )" + reps + " = Split <axis = 0, split = [" +
                     ones + R"(]> (reps)
  )" + slices + " = Split <axis = 2, split = [" +
                     ones + R"(]> (x)
  head = Constant <value = int64[3] {-1, 3, 1}> ()
  tail = Constant <value = int64[0] {}> ()
  minus = Constant <value = int64 {-1}> ()
  flat = Constant <value = int64[3] {0, 3, -1}> ()
)" + body + "  y = Concat <axis = 2> (" +
                     cat + ")\n}\n";
  auto s = run_folding(text.c_str());
  const ir::Graph& g = *s.model->graph;
  for (const char* op : {"Equal", "Where", "ConstantOfShape", "Mul", "Shape", "Constant"})
    EXPECT_EQ(count_ops(g, op), 0u) << op;
  EXPECT_EQ(count_ops(g, "Split"), 1u);  // x's; the repeats' is folded
  EXPECT_EQ(count_ops(g, "Expand"), size_t{n});
  EXPECT_EQ(s.nodes(), size_t{1 + 3 * n + 1});
  g.for_each_node([](const ir::Node* node) {
    if (node->op_type == "Split") {
      EXPECT_EQ(node->input(0)->name(), "x");
    }
    if (node->op_type != "Expand") return;
    ASSERT_TRUE(node->input(1)->is_initializer());
    EXPECT_EQ(node->input(1)->initializer()->to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 1, 4}));
  });
  expect_same_outputs(s, 2, {{"b", 2}});
}

}  // namespace
}  // namespace onnxtrim
