// fuse_attention: scaled dot-product attention in BNSH becomes Attention-23: plain, with GQA's
// repeat_kv, with a KV cache and a causal mask (Llama's additive form and GPT's Where form);
// refusals, a graph-output case and a subgraph case.
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

// Softmax(Q Kᵀ / 2) V over Q [2,2,3,4], K and V [2,2,5,4].
std::string plain(const std::string& opset = "23", const std::string& softmax = "Softmax <axis = -1> (d)",
                  const std::string& extra_output = "") {
  return R"(
<ir_version: 10, opset_import: ["" : )" + opset + R"(]>
g (float[2,2,3,4] q, float[2,2,5,4] k, float[2,2,5,4] v) => (float[2,2,3,4] y)" + extra_output + R"() {
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  c = Constant <value = float {2}> ()
  d = Div(s, c)
  p = )" + softmax + R"(
  y = MatMul(p, v)
}
)";
}

const ir::Node* only_attention(const test::Simplified& s) {
  const ir::Node* found = nullptr;
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Attention") found = n;
  });
  return found;
}

TEST(FuseAttention, PlainIsOneNode) {
  auto s = simplify_text(plain());
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 0.5f);
  EXPECT_EQ(a->attr_int("is_causal", 0), 0);
  EXPECT_EQ(a->num_inputs(), 3u);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // a graph output keeps its name
  expect_same_outputs(s);
  // Exact values: Q = 0 weighs every key alike, so each output row is the mean of V's rows.
  eval::Interpreter interp(*s.model);
  std::vector<float> v(2 * 2 * 5 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 20);  // row j of a head: 4j .. 4j+3
  auto out = interp.run({{"q", ir::RuntimeValue::of(ops::make_tensor<float>({2, 2, 3, 4}, std::vector<float>(48, 0.0f)))},
                         {"k", ir::RuntimeValue::of(ops::make_tensor<float>({2, 2, 5, 4}, std::vector<float>(80, 1.0f)))},
                         {"v", ir::RuntimeValue::of(ops::make_tensor<float>({2, 2, 5, 4}, v))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  ASSERT_EQ(y.size(), 48u);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], 8.0f + static_cast<float>(i % 4), 1e-5) << i;  // mean of 4j+e, j<5
}

TEST(FuseAttention, ScaleOnQAndMulOnScores) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[1,2,3,8] q, float[1,2,3,8] k, float[1,2,3,8] v) => (float[1,2,3,8] y) {
  c = Constant <value = float {0.5}> ()
  qs = Mul(q, c)
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(qs, kt)
  c2 = Constant <value = float {0.25}> ()
  d = Mul(c2, s)
  p = Softmax <axis = 3> (d)
  y = MatMul(p, v)
}
)");
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 0.125f);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseAttention, KeyTransposedFromTheHeadsSplitGetsItsOwnTranspose) {
  // BERT-style: Kᵀ = Transpose(Reshape(k), [0, 2, 3, 1]) straight from [B, T, H, D].
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[2,2,3,4] q, float[2,5,2,4] kr, float[2,2,5,4] v) => (float[2,2,3,4] y) {
  kt = Transpose <perm = [0, 2, 3, 1]> (kr)
  s = MatMul(q, kt)
  p = Softmax <axis = -1> (s)
  y = MatMul(p, v)
}
)");
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 1.0f);  // no scale written: 1, not the default
  ASSERT_TRUE(a->input(1)->producer() && a->input(1)->producer()->op_type == "Transpose") << s.printed;
  EXPECT_EQ(a->input(1)->producer()->attr_ints("perm"), (std::vector<int64_t>{0, 2, 1, 3}));
  expect_same_outputs(s);
}

// A decoder layer's attention: GQA (4 query heads, 2 KV heads, repeat_kv), a KV cache and a
// causal mask built from Range, as torch exports HF's Llama (mask "add") or GPT-2 (mask
// "where", with -inf). rows_offset is what the query positions add to Range(0, S).
std::string decoder(const std::string& mask, const std::string& rows = "rows = Add(r0, p_len)",
                    const std::string& neg = "neg = Constant <value = float {-3.4028234663852886e38}> ()",
                    const std::string& extra_output = "", const std::string& opset = "23") {
  std::string body = R"(
<ir_version: 10, opset_import: ["" : )" + opset + R"(]>
g (float[B,4,S,4] q, float[B,2,S,4] k, float[B,2,S,4] v, float[B,2,P,4] pk, float[B,2,P,4] pv)
  => (float[B,4,S,4] y, float[B,2,?,4] present_k, float[B,2,?,4] present_v)" + extra_output + R"() {
  present_k = Concat <axis = 2> (pk, k)
  present_v = Concat <axis = -2> (pv, v)
  a2 = Constant <value = int64[1] {2}> ()
  rep = Constant <value = int64[5] {1, 1, 2, 1, 1}> ()
  heads = Constant <value = int64[4] {0, 4, -1, 4}> ()
  ku = Unsqueeze(present_k, a2)
  ke = Expand(ku, rep)
  kr = Reshape(ke, heads)
  vu = Unsqueeze(present_v, a2)
  ve = Expand(vu, rep)
  vr = Reshape(ve, heads)
  kt = Transpose <perm = [0, 1, 3, 2]> (kr)
  s = MatMul(q, kt)
  c = Constant <value = float {2}> ()
  d = Div(s, c)
  i2 = Constant <value = int64 {2}> ()
  sq = Shape(q)
  s_len = Gather <axis = 0> (sq, i2)
  sp = Shape(pk)
  p_len = Gather <axis = 0> (sp, i2)
  t_len = Add(p_len, s_len)
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  cols = Range(zero, t_len, one)
  r0 = Range(zero, s_len, one)
  )" + rows + R"(
  a0 = Constant <value = int64[1] {0}> ()
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cols, a0)
  ru = Unsqueeze(rows, a1)
  gt = Greater(cu, ru)
  a01 = Constant <value = int64[2] {0, 1}> ()
  )" + neg + R"(
  )" + mask + R"(
  p = Softmax <axis = -1> (x)
  y = MatMul(p, vr)
}
)";
  return body;
}

const char* kAddMask = "zf = Constant <value = float {0}> ()\n  m = Where(gt, neg, zf)\n  m4 = Unsqueeze(m, a01)\n  x = Add(d, m4)";
const char* kWhereMask = "g4 = Unsqueeze(gt, a01)\n  x = Where(g4, neg, d)";
const char* kWhereMaskAllowed = "le = LessOrEqual(cu, ru)\n  l4 = Unsqueeze(le, a01)\n  x = Where(l4, d, neg)";
const char* kNegInf = "zz = Constant <value = float {0}> ()\n  neg = Log(zz)";  // -inf

void expect_decoder_fused(const test::Simplified& s) {
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_EQ(a->attr_int("is_causal", 0), 1);
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 0.5f);
  ASSERT_EQ(a->num_inputs(), 6u);
  EXPECT_EQ(a->input(1)->name(), "k");  // before the repeat and the cache: Attention does both
  EXPECT_EQ(a->input(2)->name(), "v");
  EXPECT_EQ(a->input(3), nullptr);
  EXPECT_EQ(a->input(4)->name(), "pk");
  EXPECT_EQ(a->input(5)->name(), "pv");
  ASSERT_EQ(a->num_outputs(), 3u);
  EXPECT_EQ(a->output(0)->name(), "y");
  EXPECT_EQ(a->output(1)->name(), "present_k");
  EXPECT_EQ(a->output(2)->name(), "present_v");
  EXPECT_EQ(s.nodes(), 1u) << s.printed;  // the mask, the repeat and the Concats are gone
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  expect_same_outputs(s, 1, {{"B", 1}, {"S", 1}, {"P", 6}});  // a decode step
  expect_same_outputs(s, 1, {{"B", 2}, {"S", 4}, {"P", 0}});  // an empty cache
}

TEST(FuseAttention, DecoderWithCacheAndCausalMask) {
  expect_decoder_fused(simplify_text(decoder(kAddMask)));
  expect_decoder_fused(simplify_text(decoder(kWhereMask)));
  expect_decoder_fused(simplify_text(decoder(kWhereMask, "rows = Add(r0, p_len)", kNegInf)));
  expect_decoder_fused(simplify_text(decoder(kWhereMaskAllowed)));
  // The query positions as Range(P, P + S, 1).
  expect_decoder_fused(simplify_text(decoder(kAddMask, "rows = Range(p_len, t_len, one)")));
}

std::string reason(const std::string& text, const std::string& node) {
  auto m = test::parse(text);
  passes::SimplifyOptions o;
  for (const auto& [rule, why] : passes::explain(*m, node, o))
    if (rule == "fuse_attention") return why;
  return "(not listed)";
}

TEST(FuseAttention, Refusals) {
  // Before opset 23.
  EXPECT_EQ(count_ops(*simplify_text(plain("22")).model->graph, "Attention"), 0u);
  EXPECT_EQ(reason(plain("22"), "y"), "opset 22 < 23 has no Attention");
  // Softmax over the query axis.
  auto axis2 = simplify_text(plain("23", "Softmax <axis = 2> (d)"));
  EXPECT_EQ(count_ops(*axis2.model->graph, "Attention"), 0u);
  expect_same_outputs(axis2);
  EXPECT_EQ(reason(plain("23", "Softmax <axis = 2> (d)"), "y"), "the Softmax is not over the last axis");
  // The probabilities are a graph output too.
  auto shared = simplify_text(plain("23", "Softmax <axis = -1> (d)", ", float[2,2,3,5] p"));
  EXPECT_EQ(count_ops(*shared.model->graph, "Attention"), 0u);
  expect_same_outputs(shared);
  // The query positions miss the cache's length: a mask that is not is_causal's.
  std::string top_left = decoder(kAddMask, "rows = Identity(r0)");
  auto tl = simplify_text(top_left);
  EXPECT_EQ(count_ops(*tl.model->graph, "Attention"), 0u);
  expect_same_outputs(tl, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  EXPECT_EQ(reason(top_left, "y"),
            "the mask is not a causal mask: the query positions are not Range(0, S, 1) + the cache's length along the query axis");
  // NEG too small to exclude a key.
  std::string weak = decoder(kWhereMask, "rows = Add(r0, p_len)", "neg = Constant <value = float {-1}> ()");
  auto w = simplify_text(weak);
  EXPECT_EQ(count_ops(*w.model->graph, "Attention"), 0u);
  EXPECT_EQ(reason(weak, "y"), "the Where's other branch is not a constant of -inf or at most -1e4");
  // The mask's [S, T] moved off the last two axes before the Add (here onto the heads and
  // queries of a model whose S equals its head count): not the comparison's layout.
  std::string moved = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[1,3,3,4] q, float[1,3,3,4] k, float[1,3,3,4] v) => (float[1,3,3,4] y) {
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  n = Constant <value = int64 {3}> ()
  cols = Range(zero, n, one)
  rows = Range(zero, n, one)
  a0 = Constant <value = int64[1] {0}> ()
  a1 = Constant <value = int64[1] {1}> ()
  cu = Unsqueeze(cols, a0)
  ru = Unsqueeze(rows, a1)
  gt = Greater(cu, ru)
  neg = Constant <value = float {-1e9}> ()
  zf = Constant <value = float {0}> ()
  m = Where(gt, neg, zf)
  a2 = Constant <value = int64[1] {2}> ()
  m3 = Unsqueeze(m, a2)
  x = Add(s, m3)
  p = Softmax <axis = -1> (x)
  y = MatMul(p, v)
}
)";
  auto mv = simplify_text(moved);
  EXPECT_EQ(count_ops(*mv.model->graph, "Attention"), 0u) << mv.printed;
  expect_same_outputs(mv);
  // NEG on the allowed side (cols <= rows masked): an anti-causal mask.
  std::string anti = decoder("le = LessOrEqual(cu, ru)\n  l4 = Unsqueeze(le, a01)\n  x = Where(l4, neg, d)");
  EXPECT_EQ(count_ops(*simplify_text(anti).model->graph, "Attention"), 0u);
  // A padding mask read from an input: it can mask a whole row, where Attention writes 0.
  std::string padding = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[2,2,3,4] q, float[2,2,5,4] k, float[2,2,5,4] v, float[2,1,3,5] mask) => (float[2,2,3,4] y) {
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  x = Add(s, mask)
  p = Softmax <axis = -1> (x)
  y = MatMul(p, v)
}
)";
  auto pm = simplify_text(padding);
  EXPECT_EQ(count_ops(*pm.model->graph, "Attention"), 0u);
  expect_same_outputs(pm);
  EXPECT_EQ(reason(padding, "y"), "the scores' Add is not of a causal mask Where(cond, NEG, 0)");
  // Head counts that are not known (Attention's shapes need them).
  std::string heads = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[2,H,3,4] q, float[2,H,5,4] k, float[2,H,5,4] v) => (float[2,H,3,4] y) {
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  p = Softmax <axis = -1> (s)
  y = MatMul(p, v)
}
)";
  EXPECT_EQ(reason(heads, "y"), "the head counts or head sizes are not constants with Hq a multiple of Hkv");
}

TEST(FuseAttention, CacheReadElsewhereIsNotAbsorbed) {
  // present_k is also read by a Shape: the cache stays a Concat, and without it as past the
  // causal mask's offset cannot be said: no fusion.
  auto s = simplify_text(decoder(kAddMask + std::string("\n  ks = Shape(present_k)"), "rows = Add(r0, p_len)",
                                 "neg = Constant <value = float {-3.4028234663852886e38}> ()", ", int64[4] ks"));
  EXPECT_EQ(count_ops(*s.model->graph, "Attention"), 0u) << s.printed;
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
}

TEST(FuseAttention, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[1,2,3,4] q, float[1,2,3,4] k, float[1,2,3,4] v) => (float[1,2,3,4] y) {
  y = If(c) <then_branch = t () => (float[1,2,3,4] o) {
      kt = Transpose <perm = [0, 1, 3, 2]> (k)
      s = MatMul(q, kt)
      h = Constant <value = float {2}> ()
      d = Div(s, h)
      p = Softmax <axis = -1> (d)
      o = MatMul(p, v)
    }, else_branch = e () => (float[1,2,3,4] o2) { o2 = Neg(q) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Attention"), 1u) << s.printed;
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
