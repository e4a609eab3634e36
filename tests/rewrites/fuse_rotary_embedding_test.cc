// fuse_rotary_embedding: HF's apply_rotary_pos_emb (cos/sin tables gathered by position ids,
// rotate_half) becomes RotaryEmbedding-23 with half tables; refusals, a graph-output case and a
// subgraph case.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

// Row 0: cos 1, sin 0 (the identity); row 1: cos 0, sin 1 (rotate_half itself); rows 2-3: some
// angles. Each row is cat(freqs, freqs).
const char* kCos = "float[4,4] {1, 1, 1, 1, 0, 0, 0, 0, 0.5, 0.25, 0.5, 0.25, -0.75, 0.125, -0.75, 0.125}";
const char* kSin = "float[4,4] {0, 0, 0, 0, 1, 1, 1, 1, 0.25, 0.5, 0.25, 0.5, 0.375, -1, 0.375, -1}";

// "float[4,4] cos_t = {..}" from "float[4,4] {..}": an initializer, whose dims bound the random
// position ids the check feeds.
std::string init(const std::string& name, const std::string& value) {
  size_t brace = value.find('{');
  return value.substr(0, brace) + name + " = " + value.substr(brace);
}

std::string rope(const std::string& opset = "23", const std::string& cos = kCos,
                 const std::string& lo = "x1 = Slice(x, z, h, ax)", const std::string& pos_type = "int64[B,S] pos",
                 const std::string& extra_output = "") {
  return R"(
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[B,2,S,4] x, )" +
         pos_type + R"() => (float[B,2,S,4] y)" + extra_output + R"()
  <)" + init("cos_t", cos) +
         ", " + init("sin_t", kSin) + R"(> {
  cg = Gather <axis = 0> (cos_t, pos)
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cg, a1)
  sg = Gather <axis = 0> (sin_t, pos)
  su = Unsqueeze(sg, a1)
  m1 = Mul(x, cu)
  z = Constant <value = int64[1] {0}> ()
  h = Constant <value = int64[1] {2}> ()
  e = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {-1}> ()
  )" + lo +
         R"(
  x2 = Slice(x, h, e, ax)
  nx2 = Neg(x2)
  rot = Concat <axis = -1> (nx2, x1)
  m2 = Mul(rot, su)
  y = Add(m1, m2)
}
)";
}

std::string rotary_reason(const std::string& text) { return test::explain_reason(text, "fuse_rotary_embedding"); }

TEST(FuseRotaryEmbedding, HalfTablesAndOneNode) {
  auto s = simplify_text(rope());
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* r = s.model->graph->first_node();
  EXPECT_EQ(r->op_type, "RotaryEmbedding");
  EXPECT_EQ(r->num_inputs(), 4u);
  EXPECT_EQ(r->input(3)->name(), "pos");
  EXPECT_EQ(r->attr_int("interleaved", 0), 0);
  const ir::Tensor* cos = r->input(1)->initializer();
  ASSERT_TRUE(cos);
  EXPECT_EQ(cos->dims(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(cos->to_vector<float>(), (std::vector<float>{1, 1, 0, 0, 0.5, 0.25, -0.75, 0.125}));
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s, 3, {{"B", 2}, {"S", 3}});
  // Exact values: position 0 is the identity, position 1 is rotate_half.
  eval::Interpreter interp(*s.model);
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};  // [1, 2, 2, 4]
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 2, 4}, x))},
                         {"pos", ir::RuntimeValue::of(ops::make_tensor<int64_t>({1, 2}, {0, 1}))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 4, -7, -8, 5, 6, 1, 2, 3, 4, -7, -8, 5, 6}));
}

TEST(FuseRotaryEmbedding, Refusals) {
  EXPECT_EQ(count_ops(*simplify_text(rope("22")).model->graph, "RotaryEmbedding"), 0u);
  EXPECT_EQ(rotary_reason(rope("22")), "opset 22 < 23 has no RotaryEmbedding");
  // A cos table whose halves differ (not HF's cat(freqs, freqs)).
  std::string uneven =
      rope("23", "float[4,4] {1, 1, 1, 0.5, 0, 0, 0, 0, 0.5, 0.25, 0.5, 0.25, -0.75, 0.125, -0.75, 0.125}");
  auto u = simplify_text(uneven);
  EXPECT_EQ(count_ops(*u.model->graph, "RotaryEmbedding"), 0u);
  expect_same_outputs(u, 2, {{"B", 2}, {"S", 3}});
  EXPECT_EQ(rotary_reason(uneven), "a table's rows do not have equal halves");
  // The low half taken as x[.., :1]: not rotate_half.
  std::string wrong =
      rope("23", kCos,
           "o = Constant <value = int64[1] {1}> ()\n  x1a = Slice(x, z, o, ax)\n  x1 = Concat <axis = -1> (x1a, x1a)");
  auto w = simplify_text(wrong);
  EXPECT_EQ(count_ops(*w.model->graph, "RotaryEmbedding"), 0u);
  expect_same_outputs(w, 2, {{"B", 2}, {"S", 3}});
  // Position ids of batch 1 broadcast over x's batch: RotaryEmbedding wants [B, S].
  std::string one = rope("23", kCos, "x1 = Slice(x, z, h, ax)", "int64[1,S] pos");
  EXPECT_EQ(count_ops(*simplify_text(one).model->graph, "RotaryEmbedding"), 0u);
  EXPECT_EQ(rotary_reason(one), "the position ids are not int64 [B, S] of x's batch and length");
  // x * cos is a graph output too.
  auto shared = simplify_text(rope("23", kCos, "x1 = Slice(x, z, h, ax)", "int64[B,S] pos", ", float[B,2,S,4] m1"));
  EXPECT_EQ(count_ops(*shared.model->graph, "RotaryEmbedding"), 0u);
  expect_same_outputs(shared, 2, {{"B", 2}, {"S", 3}});
}

TEST(FuseRotaryEmbedding, OffForTheWasmTarget) {
  // ONNX Runtime's WASM build runs RotaryEmbedding slower than its decomposition.
  for (const char* target : {"", "wasm", "coreml"}) {
    auto m = test::parse(rope());
    passes::SimplifyOptions o;
    o.target = target;
    ASSERT_TRUE(passes::simplify(*m, o).is_ok());
    EXPECT_EQ(count_ops(*m->graph, "RotaryEmbedding"), std::string(target) == "wasm" ? 0u : 1u) << target;
  }
  // --passes still chooses it explicitly.
  auto m = test::parse(rope());
  passes::SimplifyOptions o;
  o.target = "wasm";
  o.enable = {"fuse_rotary_embedding"};
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  EXPECT_EQ(count_ops(*m->graph, "RotaryEmbedding"), 1u);
  passes::SimplifyOptions bad;
  bad.target = "tpu";
  auto r = passes::simplify(*test::parse(rope()), bad);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().message(), "unknown target 'tpu' (known: coreml, wasm, tensorrt, openvino)");
}

TEST(FuseRotaryEmbedding, QAndKShareTheHalfTables) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[1,2,3,4] q, float[1,1,3,4] k, int64[1,3] pos) => (float[1,2,3,4] qr, float[1,1,3,4] kr)
  <)" + init("cos_t", kCos) +
                         ", " + init("sin_t", kSin) + R"(> {
  cg = Gather <axis = 0> (cos_t, pos)
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cg, a1)
  sg = Gather <axis = 0> (sin_t, pos)
  su = Unsqueeze(sg, a1)
  z = Constant <value = int64[1] {0}> ()
  h = Constant <value = int64[1] {2}> ()
  e = Constant <value = int64[1] {4}> ()
  ax = Constant <value = int64[1] {3}> ()
  q1 = Slice(q, z, h, ax)
  q2 = Slice(q, h, e, ax)
  nq2 = Neg(q2)
  qrot = Concat <axis = 3> (nq2, q1)
  qa = Mul(cu, q)
  qb = Mul(su, qrot)
  qr = Add(qb, qa)
  k1 = Slice(k, z, h, ax)
  k2 = Slice(k, h, e, ax)
  nk2 = Neg(k2)
  krot = Concat <axis = -1> (nk2, k1)
  ka = Mul(k, cu)
  kb = Mul(krot, su)
  kr = Add(ka, kb)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "RotaryEmbedding"), 2u) << s.printed;
  EXPECT_EQ(s.nodes(), 2u) << s.printed;
  EXPECT_EQ(s.model->graph->initializers().size(), 2u) << s.printed;  // one half table each, shared
  expect_same_outputs(s);
}

// GPT-NeoX's partial rotary: the first R = 4 of 8 features rotated, the rest passed through.
std::string partial(const std::string& pass_slice = "xp = Slice(x, r, e, ax)") {
  return R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[B,2,S,8] x, int64[B,S] pos) => (float[B,2,S,8] y)
  <)" + init("cos_t", kCos) +
         ", " + init("sin_t", kSin) + R"(> {
  cg = Gather <axis = 0> (cos_t, pos)
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cg, a1)
  sg = Gather <axis = 0> (sin_t, pos)
  su = Unsqueeze(sg, a1)
  z = Constant <value = int64[1] {0}> ()
  h = Constant <value = int64[1] {2}> ()
  r = Constant <value = int64[1] {4}> ()
  e = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {-1}> ()
  xr = Slice(x, z, r, ax)
  )" + pass_slice +
         R"(
  m1 = Mul(xr, cu)
  x1 = Slice(xr, z, h, ax)
  x2 = Slice(xr, h, e, ax)
  nx2 = Neg(x2)
  rot = Concat <axis = -1> (nx2, x1)
  m2 = Mul(rot, su)
  yr = Add(m1, m2)
  y = Concat <axis = -1> (yr, xp)
}
)";
}

TEST(FusePartialRotaryEmbedding, OneNodeWithTheRotaryDim) {
  auto s = simplify_text(partial());
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* r = s.model->graph->first_node();
  EXPECT_EQ(r->op_type, "RotaryEmbedding");
  EXPECT_EQ(r->attr_int("rotary_embedding_dim", 0), 4);
  EXPECT_EQ(r->input(0)->name(), "x");
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s, 3, {{"B", 2}, {"S", 3}});
  // Exact values: position 1 rotates the first half of the rotated part, the rest passes.
  eval::Interpreter interp(*s.model);
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};  // [1, 2, 1, 8]
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 1, 8}, x))},
                         {"pos", ir::RuntimeValue::of(ops::make_tensor<int64_t>({1, 1}, {1}))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(),
            (std::vector<float>{-3, -4, 1, 2, 5, 6, 7, 8, -3, -4, 1, 2, 5, 6, 7, 8}));
}

TEST(FusePartialRotaryEmbedding, Refusals) {
  // The pass-through part starts elsewhere than R: features 5..7 only (the Concat is narrower).
  std::string gap = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[B,2,S,8] x, int64[B,S] pos) => (float[B,2,S,7] y)
  <)" + init("cos_t", kCos) +
                    ", " + init("sin_t", kSin) + R"(> {
  cg = Gather <axis = 0> (cos_t, pos)
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cg, a1)
  sg = Gather <axis = 0> (sin_t, pos)
  su = Unsqueeze(sg, a1)
  z = Constant <value = int64[1] {0}> ()
  h = Constant <value = int64[1] {2}> ()
  r = Constant <value = int64[1] {4}> ()
  r5 = Constant <value = int64[1] {5}> ()
  e = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {-1}> ()
  xr = Slice(x, z, r, ax)
  xp = Slice(x, r5, e, ax)
  m1 = Mul(xr, cu)
  x1 = Slice(xr, z, h, ax)
  x2 = Slice(xr, h, e, ax)
  nx2 = Neg(x2)
  rot = Concat <axis = -1> (nx2, x1)
  m2 = Mul(rot, su)
  yr = Add(m1, m2)
  y = Concat <axis = -1> (yr, xp)
}
)";
  auto g = simplify_text(gap);
  EXPECT_EQ(count_ops(*g.model->graph, "RotaryEmbedding"), 1u) << g.printed;  // the rotated part alone
  EXPECT_EQ(count_ops(*g.model->graph, "Concat"), 1u) << g.printed;
  expect_same_outputs(g, 2, {{"B", 2}, {"S", 3}});
  auto m = test::parse(gap);
  passes::SimplifyOptions o;
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  std::string why;
  for (const auto& [rule, w] : passes::explain(*m, "y", o))
    if (rule == "fuse_partial_rotary_embedding") why = w;
  EXPECT_EQ(why, "the Slices are not x[.., :R] and x[.., R:] of the last axis");
  // --target wasm: neither rotary fusion.
  auto w = test::parse(partial());
  passes::SimplifyOptions wo;
  wo.target = "wasm";
  ASSERT_TRUE(passes::simplify(*w, wo).is_ok());
  EXPECT_EQ(count_ops(*w->graph, "RotaryEmbedding"), 0u);
}

TEST(FuseRotaryEmbedding, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[1,2,3,4] x, int64[1,3] pos) => (float[1,2,3,4] y)
  <)" + init("cos_t", kCos) +
                         ", " + init("sin_t", kSin) + R"(> {
  y = If(c) <then_branch = t () => (float[1,2,3,4] o) {
      cg = Gather <axis = 0> (cos_t, pos)
      a1 = Constant <value = int64[1] {1}> ()
      cu = Unsqueeze(cg, a1)
      sg = Gather <axis = 0> (sin_t, pos)
      su = Unsqueeze(sg, a1)
      z = Constant <value = int64[1] {0}> ()
      h = Constant <value = int64[1] {2}> ()
      e = Constant <value = int64[1] {4}> ()
      ax = Constant <value = int64[1] {-1}> ()
      x1 = Slice(x, z, h, ax)
      x2 = Slice(x, h, e, ax)
      nx2 = Neg(x2)
      rot = Concat <axis = -1> (nx2, x1)
      m1 = Mul(x, cu)
      m2 = Mul(rot, su)
      o = Add(m1, m2)
    }, else_branch = e () => (float[1,2,3,4] o2) { o2 = Neg(x) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "RotaryEmbedding"), 1u) << s.printed;
  expect_same_outputs(s);
}

// The interleaved form (GPT-J/CodeGen's rotate_every_two, Cohere's rotate_half): tables of
// repeat_interleave(freqs, 2), so each row's elements 2i and 2i + 1 are equal. Row 0 is the
// identity, row 1 rotate_every_two itself.
const char* kCosI = "float[4,4] {1, 1, 1, 1, 0, 0, 0, 0, 0.5, 0.5, 0.25, 0.25, -0.75, -0.75, 0.125, 0.125}";
const char* kSinI = "float[4,4] {0, 0, 0, 0, 1, 1, 1, 1, 0.25, 0.25, 0.5, 0.5, 0.375, 0.375, -1, -1}";

// torch's x[..., ::2], x[..., 1::2] (Slices of step 2) or, with `gather`, x.view(.., D/2, 2)[..., 0 | 1]
// (Gathers of a Reshape), then stack((-odd, even), -1).flatten(-2) as Unsqueeze/Concat/Reshape.
std::string rope_interleaved(const std::string& opset = "23", bool gather = false, const std::string& cos = kCosI,
                             const std::string& extra_output = "", int64_t even = 0) {
  const std::string odd = std::to_string(1 - even), ev = std::to_string(even);
  const std::string picks = gather ? "r5 = Constant <value = int64[5] {0, 2, 0, 2, 2}> ()\n  xr = Reshape(x, r5)\n"
                                     "  i0 = Constant <value = int64 {" +
                                         ev + "}> ()\n  i1 = Constant <value = int64 {" + odd +
                                         "}> ()\n"
                                         "  ev = Gather <axis = -1> (xr, i0)\n  od = Gather <axis = 4> (xr, i1)"
                                   : "z = Constant <value = int64[1] {" + ev +
                                         "}> ()\n  o = Constant <value = int64[1] {" + odd +
                                         "}> ()\n"
                                         "  e = Constant <value = int64[1] {9223372036854775807}> ()\n  ax = Constant "
                                         "<value = int64[1] {-1}> ()\n"
                                         "  two = Constant <value = int64[1] {2}> ()\n  ev = Slice(x, z, e, ax, two)\n "
                                         " od = Slice(x, o, e, ax, two)";
  return R"(
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[B,2,S,4] x, int64[B,S] pos) => (float[B,2,S,4] y)" +
         extra_output + R"()
  <)" + init("cos_t", cos) +
         ", " + init("sin_t", kSinI) + R"(> {
  cg = Gather <axis = 0> (cos_t, pos)
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cg, a1)
  sg = Gather <axis = 0> (sin_t, pos)
  su = Unsqueeze(sg, a1)
  m1 = Mul(x, cu)
  )" + picks +
         R"(
  no = Neg(od)
  am = Constant <value = int64[1] {-1}> ()
  u0 = Unsqueeze(no, am)
  u1 = Unsqueeze(ev, am)
  st = Concat <axis = -1> (u0, u1)
  shp = Constant <value = int64[4] {0, 2, 0, 4}> ()
  rot = Reshape(st, shp)
  m2 = Mul(rot, su)
  y = Add(m1, m2)
}
)";
}

TEST(FuseRotaryEmbedding, InterleavedEvenTablesAndOneNode) {
  for (bool gather : {false, true}) {
    SCOPED_TRACE(gather ? "Gather of a Reshape" : "Slices of step 2");
    auto s = simplify_text(rope_interleaved("23", gather));
    ASSERT_EQ(s.nodes(), 1u) << s.printed;
    const ir::Node* r = s.model->graph->first_node();
    EXPECT_EQ(r->op_type, "RotaryEmbedding");
    EXPECT_EQ(r->attr_int("interleaved", 0), 1);
    EXPECT_EQ(r->input(0)->name(), "x");
    EXPECT_EQ(r->input(3)->name(), "pos");
    const ir::Tensor* cos = r->input(1)->initializer();
    const ir::Tensor* sin = r->input(2)->initializer();
    ASSERT_TRUE(cos && sin);
    EXPECT_EQ(cos->dims(), (std::vector<int64_t>{4, 2}));
    EXPECT_EQ(cos->to_vector<float>(), (std::vector<float>{1, 1, 0, 0, 0.5, 0.25, -0.75, 0.125}));
    EXPECT_EQ(sin->to_vector<float>(), (std::vector<float>{0, 0, 1, 1, 0.25, 0.5, 0.375, -1}));
    EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
    expect_same_outputs(s, 3, {{"B", 2}, {"S", 3}});
    // Exact values: position 0 is the identity, position 1 rotate_every_two: (a, b) -> (-b, a).
    eval::Interpreter interp(*s.model);
    std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};  // [1, 2, 2, 4]
    auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 2, 4}, x))},
                           {"pos", ir::RuntimeValue::of(ops::make_tensor<int64_t>({1, 2}, {0, 1}))}});
    ASSERT_TRUE(out.is_ok()) << out.status().message();
    EXPECT_EQ(out.value()[0].tensor.to_vector<float>(),
              (std::vector<float>{1, 2, 3, 4, -6, 5, -8, 7, 1, 2, 3, 4, -6, 5, -8, 7}));
  }
}

TEST(FuseRotaryEmbedding, InterleavedRefusals) {
  EXPECT_EQ(rotary_reason(rope_interleaved("22")), "opset 22 < 23 has no RotaryEmbedding");
  // A cos table whose pairs differ (element 1 of row 0): not repeat_interleave(freqs, 2).
  std::string uneven = rope_interleaved(
      "23", false, "float[4,4] {1, 0.5, 1, 1, 0, 0, 0, 0, 0.5, 0.5, 0.25, 0.25, -0.75, -0.75, 0.125, 0.125}");
  auto u = simplify_text(uneven);
  EXPECT_EQ(count_ops(*u.model->graph, "RotaryEmbedding"), 0u) << u.printed;
  expect_same_outputs(u, 2, {{"B", 2}, {"S", 3}});
  EXPECT_EQ(rotary_reason(uneven), "a table's rows do not have equal pairs (elements 2i and 2i + 1)");
  // HF's halves-equal tables with the interleaved rotation: pairs differ, no fusion.
  std::string halves = rope_interleaved("23", false, kCos);
  EXPECT_EQ(count_ops(*simplify_text(halves).model->graph, "RotaryEmbedding"), 0u);
  // Even and odd swapped, stack((-x[0::2], x[1::2])): (a, b) -> (b, -a), another rotation.
  for (bool gather : {false, true}) {
    std::string swapped = rope_interleaved("23", gather, kCosI, "", 1);
    auto w = simplify_text(swapped);
    EXPECT_EQ(count_ops(*w.model->graph, "RotaryEmbedding"), 0u) << w.printed;
    expect_same_outputs(w, 2, {{"B", 2}, {"S", 3}});
    EXPECT_EQ(rotary_reason(swapped), "the Add is not x * cos + rotate_half(x) * sin");
  }
  // The rotated x is a graph output too.
  auto shared = simplify_text(rope_interleaved("23", true, kCosI, ", float[B,2,S,4] rot"));
  EXPECT_EQ(count_ops(*shared.model->graph, "RotaryEmbedding"), 0u) << shared.printed;
  expect_same_outputs(shared, 2, {{"B", 2}, {"S", 3}});
}

TEST(FuseRotaryEmbedding, InterleavedInsideABranch) {
  std::string body = rope_interleaved("23", true);
  body = body.substr(body.find("cg = Gather"));
  body = body.substr(0, body.rfind('}'));
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[1,2,3,4] x, int64[1,3] pos) => (float[1,2,3,4] out)
  <)" + init("cos_t", kCosI) +
                         ", " + init("sin_t", kSinI) + R"(> {
  out = If(c) <then_branch = t () => (float[1,2,3,4] y) {
  )" + body + R"(
    }, else_branch = e () => (float[1,2,3,4] o2) { o2 = Neg(x) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "RotaryEmbedding"), 1u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->first_node()->attr_int("interleaved", 0), 1) << s.printed;
  expect_same_outputs(s);
}

// GPT-J's partial rotate_every_two: the first R = 4 of 8 features rotated in pairs, the rest
// passed through.
TEST(FusePartialRotaryEmbedding, InterleavedKeepsItsPairs) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[B,2,S,8] x, int64[B,S] pos) => (float[B,2,S,8] y)
  <)" + init("cos_t", kCosI) +
                         ", " + init("sin_t", kSinI) + R"(> {
  cg = Gather <axis = 0> (cos_t, pos)
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cg, a1)
  sg = Gather <axis = 0> (sin_t, pos)
  su = Unsqueeze(sg, a1)
  z = Constant <value = int64[1] {0}> ()
  o = Constant <value = int64[1] {1}> ()
  r = Constant <value = int64[1] {4}> ()
  e = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {-1}> ()
  two = Constant <value = int64[1] {2}> ()
  xr = Slice(x, z, r, ax)
  xp = Slice(x, r, e, ax)
  m1 = Mul(xr, cu)
  ev = Slice(xr, z, e, ax, two)
  od = Slice(xr, o, e, ax, two)
  no = Neg(od)
  u0 = Unsqueeze(no, ax)
  u1 = Unsqueeze(ev, ax)
  st = Concat <axis = -1> (u0, u1)
  shp = Constant <value = int64[4] {0, 2, 0, 4}> ()
  rot = Reshape(st, shp)
  m2 = Mul(rot, su)
  yr = Add(m1, m2)
  y = Concat <axis = -1> (yr, xp)
}
)");
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* r = s.model->graph->first_node();
  EXPECT_EQ(r->op_type, "RotaryEmbedding");
  EXPECT_EQ(r->attr_int("rotary_embedding_dim", 0), 4);
  EXPECT_EQ(r->attr_int("interleaved", 0), 1);
  expect_same_outputs(s, 3, {{"B", 2}, {"S", 3}});
  eval::Interpreter interp(*s.model);
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};  // [1, 2, 1, 8]
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 1, 8}, x))},
                         {"pos", ir::RuntimeValue::of(ops::make_tensor<int64_t>({1, 1}, {1}))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(),
            (std::vector<float>{-2, 1, -4, 3, 5, 6, 7, 8, -2, 1, -4, 3, 5, 6, 7, 8}));
}

}  // namespace
}  // namespace onnxtrim
