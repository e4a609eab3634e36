// The default pipeline on real models: the light model-zoo models (weights made by
// ConstantOfShape: the size guard must keep the file from growing) and the torch exports
// (BERT-like with dynamic batch and sequence: shape chains must collapse, the model must stay
// dynamic and compute what it did).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "ops/kernel_util.h"
#include "passes/folding_policy.h"
#include "passes/shape_inference.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

namespace fs = std::filesystem;
using test::count_ops;
using test::expect_same_outputs;

std::unique_ptr<ir::Model> load(const std::string& path) {
  auto r = onnx_io::load_model(path);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r ? std::move(r).value() : nullptr;
}

// The light models' expected outputs come from the ONNX project's reference test, which
// feeds arange(n).reshape(shape) / n (computed in double, stored as float).
std::map<std::string, ir::RuntimeValue> light_feed(const ir::Model& m) {
  std::map<std::string, ir::RuntimeValue> feeds;
  for (const ir::Value* v : m.graph->inputs()) {
    if (v->is_initializer()) continue;
    auto dims = v->type.static_dims();
    if (!dims) continue;
    ir::Tensor t(ir::DataType::kFloat, *dims);
    int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i)
      t.mutable_data<float>()[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
    feeds[v->name()] = ir::RuntimeValue::of(std::move(t));
  }
  return feeds;
}

TEST(LightModels, SimplifyingNeverGrowsTheFileAndKeepsTheOutput) {
  std::string missing = test::test_data_missing(test::data_dir(), "light");
  ASSERT_TRUE(missing.empty()) << missing;
  fs::path dir = fs::path(test::data_dir()) / "light";
  int seen = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".onnx") continue;
    SCOPED_TRACE(e.path().filename().string());
    ++seen;
    auto m = load(e.path().string());
    ASSERT_TRUE(m);
    auto before = onnx_io::serialize_model(*m);
    ASSERT_TRUE(before.is_ok());
    passes::SimplifyOptions o;
    o.verify_ir = true;
    // Measured without the inferred value_info (metadata the default adds, --no-value-info
    // drops): what is compared is the effect of the passes, folding above all.
    o.write_value_info = false;
    auto r = passes::simplify(*m, o);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    auto after = onnx_io::serialize_model(*m);
    ASSERT_TRUE(after.is_ok());
    EXPECT_LE(after.value().size(), before.value().size());
    // Still the expected output.
    eval::Interpreter interp(*m);
    auto out = interp.run(light_feed(*m));
    ASSERT_TRUE(out.is_ok()) << out.status().message();
    fs::path expected = dir / (e.path().stem().string() + "_output_0.pb");
    auto want = onnx_io::load_value_file(expected.string(), m->graph->outputs()[0]->type);
    ASSERT_TRUE(want.is_ok());
    eval::Diff d = eval::compare_values(out.value()[0], want.value(), 1e-3, 1e-7);
    EXPECT_TRUE(d.ok) << d.why;
  }
  EXPECT_EQ(seen, 9) << "light models found in " << dir.string();
}

TEST(BertTiny, ShapeChainsCollapseAndTheModelStaysDynamic) {
  auto m = load(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/bert_tiny.onnx");
  ASSERT_TRUE(m);
  test::Simplified s;
  s.original = ir::clone_model(*m);
  s.model = std::move(m);
  size_t shapes_before = count_ops(*s.model->graph, "Shape");
  passes::SimplifyOptions o;
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_GT(shapes_before, 0u);
  // Every Reshape's target became a constant (0/-1 where dims are symbolic). The one Shape left
  // feeds Range(0, seq) for the position ids: a dynamic length no constant can express.
  EXPECT_LE(count_ops(*s.model->graph, "Shape"), 1u) << ir::print_graph(*s.model->graph);
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Reshape") {
      EXPECT_TRUE(n->input(1)->is_initializer()) << n->describe();
    }
  });
  EXPECT_LT(s.model->graph->num_nodes(), s.original->graph->num_nodes());
  // Nothing frozen: two different sequence lengths give the original's outputs.
  expect_same_outputs(s, 2, {{"batch", 2}, {"seq", 7}});
  expect_same_outputs(s, 2, {{"batch", 1}, {"seq", 13}});
  EXPECT_EQ(s.model->graph->inputs()[0]->type.str(), "int64[batch,seq]");
}

TEST(BertTiny, InferenceGivesAttentionReshapesInTermsOfBatchAndSeq) {
  auto m = load(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/bert_tiny.onnx");
  ASSERT_TRUE(m);
  passes::ShapeInference si(*m);
  ASSERT_TRUE(si.run().is_ok());
  int reshapes = 0;
  m->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type != "Reshape") return;
    ++reshapes;
    const ops::TypeInfo* f = si.facts(n->output(0));
    ASSERT_TRUE(f && f->shape) << n->describe();
    for (const auto& d : *f->shape) EXPECT_FALSE(d.is_fresh()) << n->describe() << " has an unknown dim";
    std::string s;
    for (const auto& d : *f->shape) s += d.str() + ",";
    EXPECT_NE(s.find("batch"), std::string::npos) << n->describe() << ": " << s;
    EXPECT_NE(s.find("seq"), std::string::npos) << n->describe() << ": " << s;
  });
  EXPECT_GT(reshapes, 0);
}

// tests/models/fusions_tiny.onnx gives every new fusion something to do; the default pipeline
// must leave one Conv, pools, Flatten, two Gemms, one Slice and the Relus, and compute the same.
TEST(FusionsTiny, EveryFusionFiresAndTheOutputsMatch) {
  auto m = load(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/fusions_tiny.onnx");
  ASSERT_TRUE(m);
  test::Simplified s;
  s.original = ir::clone_model(*m);
  s.model = std::move(m);
  passes::SimplifyOptions o;
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const ir::Graph& g = *s.model->graph;
  for (const char* gone : {"Pad", "BatchNormalization", "Transpose", "MatMul", "Add", "Mul", "Concat"})
    EXPECT_EQ(count_ops(g, gone), 0u) << gone << "\n" << ir::print_graph(g);
  EXPECT_EQ(count_ops(g, "Gemm"), 2u);
  EXPECT_EQ(count_ops(g, "Slice"), 1u);
  EXPECT_EQ(g.num_nodes(), 9u);
  expect_same_outputs(s, 2, {{"batch", 3}});
}

// Issue 14's fixtures (tests/models/make_fixtures.py), simplified by the default pipeline.
namespace {

struct FixtureRun {
  test::Simplified s;
  uint64_t bytes_before = 0, bytes_after = 0;
};

uint64_t initializer_bytes(const ir::Graph& g) {
  uint64_t total = 0;
  for (const ir::Value* v : g.initializers()) total += v->initializer()->byte_size();
  g.for_each_node([&](const ir::Node* n) {
    for (const ir::Graph* sg : n->subgraphs()) total += initializer_bytes(*sg);
  });
  return total;
}

FixtureRun simplify_fixture(const std::string& name) {
  FixtureRun f;
  auto m = load(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/" + name + ".onnx");
  EXPECT_TRUE(m);
  if (!m) return f;
  f.s.original = ir::clone_model(*m);
  f.s.model = std::move(m);
  passes::SimplifyOptions o;
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*f.s.model, o);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  f.bytes_before = initializer_bytes(*f.s.original->graph);
  // Constant nodes of the original hold tensors too: the budget is judged on what is stored.
  f.s.original->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Constant")
      if (const ir::Attribute* a = n->attr("value"); a && a->t) f.bytes_before += a->t->byte_size();
  });
  f.bytes_after = initializer_bytes(*f.s.model->graph);
  return f;
}

size_t total_nodes(const ir::Graph& g) {
  size_t n = 0;
  g.for_each_node([&](const ir::Node* node) {
    ++n;
    for (const ir::Graph* sg : node->subgraphs()) n += total_nodes(*sg);
  });
  return n;
}

}  // namespace

// torch's x.expand(B, -1, -1) of the class token: Equal/Where decided from "a dim is never
// negative", so a dynamic batch costs only the nodes that read it (Shape -> Gather ->
// Unsqueeze -> Concat -> Expand at most) over the static export.
TEST(Issue14Fixtures, VitWithDynamicBatchEndsNearItsStaticExport) {
  FixtureRun dyn = simplify_fixture("vit_tiny");
  FixtureRun stat = simplify_fixture("vit_tiny_static");
  ASSERT_TRUE(dyn.s.model && stat.s.model);
  size_t d = total_nodes(*dyn.s.model->graph), st = total_nodes(*stat.s.model->graph);
  EXPECT_LE(d, st + 5) << "dynamic " << d << ", static " << st;
  EXPECT_LE(count_ops(*dyn.s.model->graph, "Shape"), 1u) << ir::print_graph(*dyn.s.model->graph);
  dyn.s.model->graph->for_each_node([&](const ir::Node* n) {
    EXPECT_NE(n->op_type, "Where") << n->describe();
    EXPECT_NE(n->op_type, "Equal") << n->describe();
  });
  expect_same_outputs(dyn.s, 1, {{"batch", 2}});
  expect_same_outputs(dyn.s, 1, {{"batch", 5}});
}

// Swin's shifted-window masks (ConstantOfShape -> ScatterND ... -> Where) are whole constant
// computations in a static export: they fold, and the tensors grow by less than the budget.
TEST(Issue14Fixtures, SwinStaticMasksFoldWithinTheBudget) {
  FixtureRun f = simplify_fixture("swin_static_tiny");
  ASSERT_TRUE(f.s.model);
  for (const char* op : {"ScatterND", "ConstantOfShape", "Where", "Equal", "Shape"})
    EXPECT_EQ(count_ops(*f.s.model->graph, op), 0u) << op;
  uint64_t budget = passes::fold_budget(f.bytes_before, -1);
  EXPECT_LE(f.bytes_after, f.bytes_before + budget) << f.bytes_before << " -> " << f.bytes_after;
  expect_same_outputs(f.s, 1);
}

// tf2onnx's channel padding, Concat(x, ConstantOfShape([batch, 4, 8, 8])): one Pad, no tensor.
TEST(Issue14Fixtures, ChannelPadIsOnePad) {
  FixtureRun f = simplify_fixture("channel_pad_tiny");
  ASSERT_TRUE(f.s.model);
  EXPECT_EQ(count_ops(*f.s.model->graph, "Pad"), 1u) << ir::print_graph(*f.s.model->graph);
  EXPECT_EQ(count_ops(*f.s.model->graph, "Concat"), 0u);
  EXPECT_EQ(count_ops(*f.s.model->graph, "ConstantOfShape"), 0u);
  EXPECT_LE(f.bytes_after, f.bytes_before + 64);
  expect_same_outputs(f.s, 1, {{"batch", 1}});
  expect_same_outputs(f.s, 1, {{"batch", 3}});
}

// Silero-style nest: the Ifs on the rank and Size of the input (outer-scope values) are
// decided inside the branches; only the If on the data-dependent sample rate stays.
TEST(Issue14Fixtures, IfNestLosesTheRankDecidedIfs) {
  FixtureRun f = simplify_fixture("if_nest_tiny");
  ASSERT_TRUE(f.s.model);
  size_t ifs = 0;
  std::function<void(const ir::Graph&)> count = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      ifs += n->op_type == "If";
      EXPECT_NE(n->op_type, "Constant") << "Constant node left in " << g.name;
      for (const ir::Graph* sg : n->subgraphs()) count(*sg);
    });
  };
  count(*f.s.model->graph);
  EXPECT_EQ(ifs, 1u) << ir::print_graph(*f.s.model->graph);
  expect_same_outputs(f.s, 2, {{"batch", 2}});
  expect_same_outputs(f.s, 2, {{"batch", 4}});
}

}  // namespace
}  // namespace onnxtrim
