// --opset N (src/convert/): each attribute <-> input move in both directions with its exact
// values, the semantic steps, expansions, refusals, a subgraph and a function. Every case runs
// through the public API with the check forced on and no passes (so the converted graph is
// what we look at), which runs the original and the converted model in the evaluator.
#include <gtest/gtest.h>

#include <functional>

#include "api/internal.h"
#include "onnxtrim/onnxtrim.h"
#include "convert/opset.h"
#include "ir/printer.h"
#include "onnxtrim/onnxtrim.hpp"
#include "api_test_util.h"

namespace onnxtrim {
namespace {

using test::Converted;

Converted convert_model(Model m, int64_t opset) {
  Options o;
  o.opset = opset;
  o.run_passes = false;
  o.verify = Options::Verify::kOn;
  Report r = simplify(m, o);
  EXPECT_TRUE(r.verification.ran) << r.verification.skipped;
  EXPECT_TRUE(r.verification.ok) << r.verification.why;
  EXPECT_EQ(api::ir_model(m).opset(""), opset);
  return Converted{std::move(m), std::move(r)};
}
Converted convert(const std::string& text, int64_t opset) { return convert_model(Model::parse_text(text), opset); }
// A converted model converted again (back).
Converted again(const Converted& c, int64_t opset) { return convert_model(c.model.clone(), opset); }

// The refusal's message (and exit code 6), or "" when the conversion went through.
std::string refusal(const std::string& text, int64_t opset, int* code = nullptr) {
  Model m = Model::parse_text(text);
  Options o;
  o.opset = opset;
  o.run_passes = false;
  try {
    simplify(m, o);
  } catch (const Error& e) {
    if (code) *code = e.exit_code();
    return e.what();
  }
  return "";
}

// The first node of `op` (subgraphs and function bodies included).
const ir::Node* find(const Model& m, const std::string& op) {
  const ir::Node* found = nullptr;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      if (!found && n->op_type == op) found = n;
      for (const ir::Graph* sg : n->subgraphs()) scan(*sg);
    });
  };
  scan(*api::ir_model(m).graph);
  for (const auto& f : api::ir_model(m).functions) scan(*f.body);
  return found;
}

int op_count(const Model& m, const std::string& op) {
  int k = 0;
  api::ir_model(m).graph->for_each_node([&](const ir::Node* n) { k += n->op_type == op; });
  return k;
}

// The constant behind input i of n (initializer or Constant node), as int64 / float.
const ir::Tensor* const_input(const ir::Node* n, size_t i) {
  const ir::Value* v = n ? n->input(i) : nullptr;
  if (!v) return nullptr;
  if (v->is_initializer()) return v->initializer();
  if (v->producer() && v->producer()->op_type == "Constant") return v->producer()->attr("value")->t.get();
  return nullptr;
}
std::vector<int64_t> ints_in(const ir::Node* n, size_t i) {
  const ir::Tensor* t = const_input(n, i);
  EXPECT_NE(t, nullptr) << "input " << i;
  return t ? t->to_vector<int64_t>() : std::vector<int64_t>{};
}
std::vector<float> floats_in(const ir::Node* n, size_t i) {
  const ir::Tensor* t = const_input(n, i);
  EXPECT_NE(t, nullptr) << "input " << i;
  return t ? t->to_vector<float>() : std::vector<float>{};
}

using V = std::vector<int64_t>;
using F = std::vector<float>;

// ---------------------------------------------------------------- Squeeze / Unsqueeze

const char* kSqueeze11 = R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[3,1,4] x) => (float[1,3,4,1] y) {
  s = Squeeze <axes = [1]> (x)
  y = Unsqueeze <axes = [0, -1]> (s)
}
)";

TEST(Opset, SqueezeUnsqueezeAxesUpAndDown) {
  auto up = convert(kSqueeze11, 13);
  const ir::Node* sq = find(up.model, "Squeeze");
  const ir::Node* un = find(up.model, "Unsqueeze");
  EXPECT_FALSE(sq->has_attr("axes"));
  EXPECT_EQ(ints_in(sq, 1), V({1}));
  EXPECT_EQ(ints_in(un, 1), V({0, -1}));
  // and back down
  auto down = again(up, 11);
  sq = find(down.model, "Squeeze");
  un = find(down.model, "Unsqueeze");
  EXPECT_EQ(sq->num_inputs(), 1u);
  EXPECT_EQ(sq->attr_ints("axes"), V({1}));
  EXPECT_EQ(un->attr_ints("axes"), V({0, -1}));
}

TEST(Opset, DowngradeNeedsConstantAxes) {
  int code = 0;
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[3,1,4] x, int64[1] ax) => (float[3,4] y) {
  y = Squeeze(x, ax)
}
)",
                            11, &code);
  EXPECT_EQ(code, kExitUnsupported);
  EXPECT_NE(msg.find("input 'axes' is not a constant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(Squeeze)"), std::string::npos) << msg;
}

TEST(Opset, NegativeAxesBelow11BecomeNonNegative) {
  auto down = convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[3,4] x) => (float[3,4,1] y, float[3,8] z) {
  ax = Constant <value = int64[1] {-1}> ()
  y = Unsqueeze(x, ax)
  z = Concat <axis = -1> (x, x)
}
)",
                      10);
  EXPECT_EQ(find(down.model, "Unsqueeze")->attr_ints("axes"), V({2}));  // in the output's rank
  EXPECT_EQ(find(down.model, "Concat")->attr_int("axis", 0), 1);
}

// ---------------------------------------------------------------- Reduce*

TEST(Opset, ReduceAxesUpAndDown) {
  auto up = convert(R"(
<ir_version: 7, opset_import: ["" : 12]>
g (float[2,3,4] x) => (float[2,1,1] s, float[2,3] m) {
  s = ReduceSum <axes = [1, 2]> (x)
  m = ReduceMean <axes = [-1], keepdims = 0> (x)
}
)",
                    18);
  EXPECT_EQ(ints_in(find(up.model, "ReduceSum"), 1), V({1, 2}));
  EXPECT_EQ(ints_in(find(up.model, "ReduceMean"), 1), V({-1}));
  EXPECT_EQ(find(up.model, "ReduceMean")->attr_int("keepdims", 1), 0);
  auto down = again(up, 12);
  EXPECT_EQ(find(down.model, "ReduceSum")->attr_ints("axes"), V({1, 2}));
  EXPECT_EQ(find(down.model, "ReduceMean")->attr_ints("axes"), V({-1}));
  EXPECT_EQ(find(down.model, "ReduceMean")->num_inputs(), 1u);
  // ReduceMean moves at 18 only: down to 13 it keeps its attribute form, ReduceSum its input.
  auto mid = again(up, 13);
  EXPECT_EQ(ints_in(find(mid.model, "ReduceSum"), 1), V({1, 2}));
  EXPECT_EQ(find(mid.model, "ReduceMean")->attr_ints("axes"), V({-1}));
}

TEST(Opset, ReduceNoopWithEmptyAxesIsRefusedDown) {
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[2,3] x) => (float[2,3] y) {
  y = ReduceMax <noop_with_empty_axes = 1> (x)
}
)",
                            17);
  EXPECT_NE(msg.find("noop_with_empty_axes=1"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- Split

TEST(Opset, SplitSizesAndNumOutputs) {
  auto up = convert(R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[2,6] x) => (float[2,2] a, float[2,4] b) {
  a, b = Split <axis = 1, split = [2, 4]> (x)
}
)",
                    13);
  EXPECT_EQ(ints_in(find(up.model, "Split"), 1), V({2, 4}));
  auto down = again(up, 11);
  EXPECT_EQ(find(down.model, "Split")->attr_ints("split"), V({2, 4}));

  // An even split gains num_outputs at 18 ...
  auto even = convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,6] x) => (float[2,3] a, float[2,3] b) {
  a, b = Split <axis = 1> (x)
}
)",
                      18);
  EXPECT_EQ(find(even.model, "Split")->attr_int("num_outputs", 0), 2);
  // ... and an uneven num_outputs gets its sizes going down (8 in 3: 3, 3, 2).
  auto uneven = convert(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[8,2] x) => (float[3,2] a, float[3,2] b, float[2,2] c) {
  a, b, c = Split <num_outputs = 3> (x)
}
)",
                        13);
  const ir::Node* s = find(uneven.model, "Split");
  EXPECT_FALSE(s->has_attr("num_outputs"));
  EXPECT_EQ(ints_in(s, 1), V({3, 3, 2}));
  // A dim known at run time only: the sizes are computed. Checked at N = 7 (3, 3, 1) and 5 (2, 2, 1).
  const char* dyn = R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[N,2] x) => (float[?,2] a, float[?,2] b, float[?,2] c) {
  a, b, c = Split <num_outputs = 3> (x)
}
)";
  for (int64_t rows : {7, 5}) {
    Model m = Model::parse_text(dyn);
    Options o;
    o.opset = 13;
    o.run_passes = false;
    o.verify = Options::Verify::kOn;
    o.set("model-check-inputs", "x:" + std::to_string(rows) + ",2");  // the check's inputs only
    Report r = simplify(m, o);
    EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.why;
    EXPECT_EQ(r.verification.dims.count("N") ? r.verification.dims.at("N") : rows, rows);
    EXPECT_EQ(op_count(m, "Min"), 1);  // computed, not constant
  }
  auto dynamic = convert(dyn, 13);
  EXPECT_EQ(op_count(dynamic.model, "Min"), 1);
  EXPECT_NE(find(dynamic.model, "Split")->input(1), nullptr);
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[N,2] x) => (float[?,2] a, float[?,2] b, float[?,2] c) {
  a, b, c = Split <num_outputs = 3> (x)
}
)",
                            12);
  EXPECT_NE(msg.find("num_outputs=3"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- Pad, Clip, Slice, TopK

TEST(Opset, PadAttributesAndInputs) {
  auto up = convert(R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[2,3] x) => (float[4,4] y) {
  y = Pad <pads = [1, 0, 1, 1], value = 1.5> (x)
}
)",
                    11);
  const ir::Node* p = find(up.model, "Pad");
  EXPECT_EQ(ints_in(p, 1), V({1, 0, 1, 1}));
  EXPECT_EQ(floats_in(p, 2), F({1.5f}));
  EXPECT_FALSE(p->has_attr("pads"));
  auto down = again(up, 10);
  p = find(down.model, "Pad");
  EXPECT_EQ(p->attr_ints("pads"), V({1, 0, 1, 1}));
  EXPECT_FLOAT_EQ(p->attr_float("value", 0), 1.5f);
  EXPECT_EQ(p->num_inputs(), 1u);
  // Pad-18 axes spread over every axis going down.
  auto axes = convert(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[2,3] x) => (float[2,6] y) {
  pads = Constant <value = int64[2] {1, 2}> ()
  ax = Constant <value = int64[1] {-1}> ()
  y = Pad (x, pads, , ax)
}
)",
                      13);
  EXPECT_EQ(ints_in(find(axes.model, "Pad"), 1), V({0, 1, 0, 2}));
  EXPECT_EQ(find(axes.model, "Pad")->num_inputs(), 2u);
}

TEST(Opset, ClipBounds) {
  auto up = convert(R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[2,3] x) => (float[2,3] y) {
  y = Clip <min = -0.25, max = 0.5> (x)
}
)",
                    11);
  const ir::Node* c = find(up.model, "Clip");
  EXPECT_EQ(floats_in(c, 1), F({-0.25f}));
  EXPECT_EQ(floats_in(c, 2), F({0.5f}));
  auto down = again(up, 10);
  c = find(down.model, "Clip");
  EXPECT_FLOAT_EQ(c->attr_float("min", 0), -0.25f);
  EXPECT_FLOAT_EQ(c->attr_float("max", 0), 0.5f);
  EXPECT_EQ(c->num_inputs(), 1u);
  // Only max: min stays absent.
  auto only_max = convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x) => (float[2,3] y) {
  m = Constant <value = float {0.5}> ()
  y = Clip (x, , m)
}
)",
                          10);
  c = find(only_max.model, "Clip");
  EXPECT_FALSE(c->has_attr("min"));
  EXPECT_FLOAT_EQ(c->attr_float("max", 0), 0.5f);
}

TEST(Opset, SliceAndTopK) {
  auto up = convert(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,6] x) => (float[2,3] y, float[4,2] v, int64[4,2] i) {
  y = Slice <starts = [1, 2], ends = [3, 5], axes = [0, 1]> (x)
  v, i = TopK <k = 2, axis = 1> (x)
}
)",
                    10);
  const ir::Node* s = find(up.model, "Slice");
  EXPECT_EQ(ints_in(s, 1), V({1, 2}));
  EXPECT_EQ(ints_in(s, 2), V({3, 5}));
  EXPECT_EQ(ints_in(s, 3), V({0, 1}));
  EXPECT_EQ(ints_in(find(up.model, "TopK"), 1), V({2}));
  auto down = again(up, 9);
  s = find(down.model, "Slice");
  EXPECT_EQ(s->attr_ints("starts"), V({1, 2}));
  EXPECT_EQ(s->attr_ints("ends"), V({3, 5}));
  EXPECT_EQ(s->attr_ints("axes"), V({0, 1}));
  EXPECT_EQ(find(down.model, "TopK")->attr_int("k", 0), 2);
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4,6] x) => (float[2,6] y) {
  st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {4}> ()
  ax = Constant <value = int64[1] {0}> ()
  sp = Constant <value = int64[1] {2}> ()
  y = Slice (x, st, en, ax, sp)
}
)",
                            9);
  EXPECT_NE(msg.find("step other than 1"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- Shape, Reshape

TEST(Opset, ShapeStartEndBecomesSlice) {
  auto down = convert(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2,3,4,5] x) => (int64[2] y) {
  y = Shape <start = 1, end = -1> (x)
}
)",
                      13);
  const ir::Node* sh = find(down.model, "Shape");
  EXPECT_FALSE(sh->has_attr("start"));
  EXPECT_FALSE(sh->has_attr("end"));
  const ir::Node* sl = find(down.model, "Slice");
  ASSERT_NE(sl, nullptr);
  EXPECT_EQ(ints_in(sl, 1), V({1}));
  EXPECT_EQ(ints_in(sl, 2), V({-1}));
  EXPECT_EQ(sl->output(0)->name(), "y");
}

TEST(Opset, ReshapeAllowzero) {
  auto ok = convert(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2,6] x) => (float[3,4] y) {
  s = Constant <value = int64[2] {3, 4}> ()
  y = Reshape <allowzero = 1> (x, s)
}
)",
                    13);
  EXPECT_FALSE(find(ok.model, "Reshape")->has_attr("allowzero"));
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[0,6] x) => (float[0,3,2] y) {
  s = Constant <value = int64[3] {0, 3, 2}> ()
  y = Reshape <allowzero = 1> (x, s)
}
)",
                            13);
  EXPECT_NE(msg.find("allowzero=1 with a 0"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- Softmax, norms, Resize

TEST(Opset, SoftmaxAxisSemantics) {
  // Softmax-11 over axis 1 of a rank-3 input normalizes over dims 1 and 2 together.
  auto up = convert(R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[2,3,4] x) => (float[2,3,4] y) {
  y = Softmax <axis = 1> (x)
}
)",
                    13);
  EXPECT_EQ(op_count(up.model, "Flatten"), 1);
  EXPECT_EQ(op_count(up.model, "Reshape"), 1);
  // Softmax-13 over a middle axis goes down through Transposes; over the last axis, unchanged.
  auto down = convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,4] x) => (float[2,3,4] y, float[2,3,4] z) {
  y = Softmax <axis = 1> (x)
  z = LogSoftmax (x)
}
)",
                      11);
  EXPECT_EQ(op_count(down.model, "Transpose"), 2);
  int last = 0;
  api::ir_model(down.model).graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "LogSoftmax") last = static_cast<int>(n->attr_int("axis", 1));
  });
  EXPECT_EQ(last, -1);  // the default changed from 1 to -1: written out
}

TEST(Opset, GroupNormalizationScalePerChannel) {
  // Per-channel scale/bias that differ within a group: GroupNormalization-18 with 1/0 and a
  // per-channel Mul/Add after it.
  auto down = convert(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[2,4,3] x) => (float[2,4,3] y) {
  s = Constant <value = float[4] {0.5, 2, -1, 3}> ()
  b = Constant <value = float[4] {0.1, 0.2, 0.3, 0.4}> ()
  y = GroupNormalization <num_groups = 2> (x, s, b)
}
)",
                      18);
  const ir::Node* gn = find(down.model, "GroupNormalization");
  EXPECT_EQ(floats_in(gn, 1), F({1, 1}));
  EXPECT_EQ(floats_in(gn, 2), F({0, 0}));
  EXPECT_EQ(op_count(down.model, "Mul"), 1);
  // Uniform within each group: one value per group, nothing added.
  auto uniform = convert(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[2,4,3] x) => (float[2,4,3] y) {
  s = Constant <value = float[4] {0.5, 0.5, 3, 3}> ()
  b = Constant <value = float[4] {0.1, 0.1, 0.4, 0.4}> ()
  y = GroupNormalization <num_groups = 2> (x, s, b)
}
)",
                         18);
  gn = find(uniform.model, "GroupNormalization");
  EXPECT_EQ(floats_in(gn, 1), F({0.5f, 3}));
  EXPECT_EQ(floats_in(gn, 2), F({0.1f, 0.4f}));
  EXPECT_EQ(op_count(uniform.model, "Mul"), 0);
  // And up again: repeated per channel.
  auto up = again(uniform, 21);
  EXPECT_EQ(floats_in(find(up.model, "GroupNormalization"), 1), F({0.5f, 0.5f, 3, 3}));
}

TEST(Opset, BatchNormalizationTrainingOutputs) {
  auto down = convert(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2,3,4] x) => (float[2,3,4] y) {
  s = Constant <value = float[3] {1, 2, 3}> ()
  b = Constant <value = float[3] {0, 1, 0}> ()
  m = Constant <value = float[3] {0.5, 0, 1}> ()
  v = Constant <value = float[3] {1, 4, 2}> ()
  y = BatchNormalization <epsilon = 0.001> (x, s, b, m, v)
}
)",
                      9);
  const ir::Node* bn = find(down.model, "BatchNormalization");
  EXPECT_FALSE(bn->has_attr("training_mode"));
  EXPECT_EQ(bn->num_outputs(), 1u);
}

TEST(Opset, UpsampleBecomesResizeAndBack) {
  auto up = convert(R"(
<ir_version: 3, opset_import: ["" : 8]>
g (float[1,1,2,2] x) => (float[1,1,4,6] y) {
  y = Upsample <scales = [1.0, 1.0, 2.0, 3.0], mode = "nearest"> (x)
}
)",
                    13);
  const ir::Node* r = find(up.model, "Resize");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(floats_in(r, 2), F({1, 1, 2, 3}));
  EXPECT_EQ(r->attr_string("coordinate_transformation_mode", ""), "asymmetric");
  EXPECT_EQ(r->attr_string("nearest_mode", ""), "floor");
  auto down = again(up, 9);
  const ir::Node* u = find(down.model, "Upsample");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(floats_in(u, 1), F({1, 1, 2, 3}));
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,2,2] x) => (float[1,1,4,4] y) {
  sc = Constant <value = float[4] {1, 1, 2, 2}> ()
  y = Resize <mode = "linear"> (x, , sc)
}
)",
                            10);
  EXPECT_NE(msg.find("coordinate_transformation_mode 'half_pixel'"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- expansions and refusals

TEST(Opset, LayerNormalizationAndGeluExpanded) {
  auto down = convert(R"(
<ir_version: 9, opset_import: ["" : 20]>
g (float[2,5,8] x) => (float[2,5,8] y, float[2,5,8] z) {
  s = Constant <value = float[8] {1, 2, 0.5, 1, 1, 3, 1, 0.25}> ()
  b = Constant <value = float[8] {0, 0.5, 0, 0, 1, 0, 0, -1}> ()
  n = LayerNormalization <epsilon = 0.001> (x, s, b)
  y = Gelu (n)
  z = Gelu <approximate = "tanh"> (x)
}
)",
                      13);
  EXPECT_EQ(down.report.opset.nodes_expanded, 3);
  EXPECT_EQ(op_count(down.model, "LayerNormalization"), 0);
  EXPECT_EQ(op_count(down.model, "Gelu"), 0);
  EXPECT_EQ(op_count(down.model, "Erf"), 1);
  EXPECT_EQ(op_count(down.model, "Tanh"), 1);
  EXPECT_EQ(op_count(down.model, "ReduceMean"), 2);
  EXPECT_EQ(find(down.model, "ReduceMean")->attr_ints("axes"), V({-1}));
}

TEST(Opset, AttentionExpanded) {
  // 4-D, bool mask and causal, softcap: checked against the evaluator's Attention-23.
  auto four = convert(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[2,3,4,8] q, float[2,3,6,8] k, float[2,3,6,5] v, bool[4,6] m) => (float[2,3,4,5] y) {
  y = Attention <is_causal = 1, softcap = 2.5> (q, k, v, m)
}
)",
                      13);
  EXPECT_EQ(op_count(four.model, "Attention"), 0);
  EXPECT_EQ(op_count(four.model, "Softmax"), 1);
  // 3-D, grouped heads (4 query heads over 2 key/value heads), past and present key/value.
  auto gqa = convert(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[2,3,32] q, float[2,5,16] k, float[2,5,16] v, float[2,2,4,8] pk, float[2,2,4,8] pv)
  => (float[2,3,32] y, float[2,2,9,8] present_k, float[2,2,9,8] present_v) {
  y, present_k, present_v = Attention <q_num_heads = 4, kv_num_heads = 2, scale = 0.3> (q, k, v, , pk, pv)
}
)",
                     13);
  EXPECT_EQ(op_count(gqa.model, "Attention"), 0);
  EXPECT_EQ(op_count(gqa.model, "Expand"), 2);
  EXPECT_EQ(gqa.report.verification.outputs.size(), 3u);
}

TEST(Opset, CenterCropPadExpanded) {
  auto down = convert(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[4,5] x) => (float[2,8] y) {
  s = Constant <value = int64[2] {2, 8}> ()
  y = CenterCropPad (x, s)
}
)",
                      13);
  EXPECT_EQ(ints_in(find(down.model, "Pad"), 1), V({0, 1, 0, 2}));
  EXPECT_EQ(ints_in(find(down.model, "Slice"), 1), V({1}));
  EXPECT_EQ(ints_in(find(down.model, "Slice"), 2), V({3}));
}

TEST(Opset, OpTooNewWithoutExpansionIsRefusedInOneLine) {
  int code = 0;
  std::string msg = refusal(R"(
<ir_version: 9, opset_import: ["" : 19]>
g (float[1,2,5,5] x, float[1,18,3,3] off) => (float[1,2,3,3] y) {
  w = Constant <value = float[2,2,3,3] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}> ()
  y = DeformConv (x, w, off)
}
)",
                            13, &code);
  EXPECT_EQ(code, kExitUnsupported);
  EXPECT_NE(msg.find("(DeformConv)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no version at opset 13; it exists from opset 19"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(Opset, TypesTheTargetVersionLacksAreRefused) {
  std::string msg = refusal(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (bfloat16[4] x, bfloat16[4] y) => (bfloat16[4] z) {
  z = Add(x, y)
}
)",
                            12);
  EXPECT_NE(msg.find("is bfloat16, which Add-7 does not admit"), std::string::npos) << msg;
  // float is admitted by both: the same model in float converts.
  convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x, float[4] y) => (float[4] z) {
  z = Add(x, y)
}
)",
          12);
}

TEST(Opset, TargetOutOfRange) {
  int code = 0;
  std::string msg = refusal(kSqueeze11, 6, &code);
  EXPECT_EQ(code, kExitUsage);
  EXPECT_NE(msg.find("--opset"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- subgraphs and functions

TEST(Opset, IfBranchesAreConverted) {
  auto down = convert(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[3,4] x, bool c) => (float[1,3,4] y) {
  ax = Constant <value = int64[1] {0}> ()
  y = If(c) <
    then_branch = t () => (float[1,3,4] a) { a = Unsqueeze(x, ax) },
    else_branch = e () => (float[1,3,4] b) { r = Relu(x)  b = Unsqueeze(r, ax) }
  >
}
)",
                      11);
  int converted = 0;
  const ir::Node* iff = find(down.model, "If");
  for (const ir::Graph* sg : iff->subgraphs())
    sg->for_each_node([&](const ir::Node* n) {
      if (n->op_type == "Unsqueeze") {
        EXPECT_EQ(n->num_inputs(), 1u);
        EXPECT_EQ(n->attr_ints("axes"), V({0}));
        ++converted;
      }
    });
  EXPECT_EQ(converted, 2);
}

TEST(Opset, LocalFunctionsAreConverted) {
  auto down = convert(R"(
<ir_version: 10, opset_import: ["" : 13, "local" : 1]>
g (float[2,3] x) => (float[2,1] y) {
  y = local.RowSum(x)
}
<domain: "local", opset_import: ["" : 13]>
RowSum (x) => (y) {
  ax = Constant <value = int64[1] {1}> ()
  y = ReduceSum(x, ax)
}
)",
                      11);
  const ir::Model& m = api::ir_model(down.model);
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Node* rs = find(down.model, "ReduceSum");
  EXPECT_EQ(rs->attr_ints("axes"), V({1}));
  EXPECT_EQ(rs->num_inputs(), 1u);
  for (const auto& o : m.functions[0].opset_import)
    if (o.domain.empty()) {
      EXPECT_EQ(o.version, 11);
    }
  // Up again: a constant made inside a function is a Constant node (no initializers there).
  auto up = again(down, 13);
  rs = find(up.model, "ReduceSum");
  ASSERT_NE(rs->input(1), nullptr);
  ASSERT_NE(rs->input(1)->producer(), nullptr);
  EXPECT_EQ(rs->input(1)->producer()->op_type, "Constant");
  EXPECT_EQ(ints_in(rs, 1), V({1}));
}

TEST(Opset, OptionTableAndReport) {
  Options o;
  o.set("opset", "13");
  EXPECT_EQ(o.opset, 13);
  EXPECT_THROW(o.set("opset", "x"), Error);
  auto c = convert(kSqueeze11, 13);
  EXPECT_EQ(c.report.opset.from, 11);
  EXPECT_EQ(c.report.opset.to, 13);
  EXPECT_EQ(c.report.opset.nodes_converted, 2);
  EXPECT_NE(c.report.to_json().find("\"opset\""), std::string::npos);
}

TEST(Opset, CApi) {
  std::string bytes = Model::parse_text(kSqueeze11).serialize();
  onnxtrim_options* o = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_set(o, "opset", "13"), 0);
  EXPECT_EQ(onnxtrim_options_set(o, "opset", "thirteen"), 2);
  void* out = nullptr;
  size_t size = 0;
  char *report = nullptr, *error = nullptr;
  int rc = onnxtrim_simplify_buffer(bytes.data(), bytes.size(), o, &out, &size, &report, &error);
  ASSERT_EQ(rc, 0) << (error ? error : "");
  Model r = Model::parse(out, size);
  EXPECT_EQ(api::ir_model(r).opset(""), 13);
  EXPECT_NE(std::string(report).find("\"opset\""), std::string::npos) << report;
  onnxtrim_free(out);
  onnxtrim_free(report);
  onnxtrim_options_free(o);
}

}  // namespace
}  // namespace onnxtrim
