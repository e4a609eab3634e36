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
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[2,2,3,4] q, float[2,2,5,4] k, float[2,2,5,4] v) => (float[2,2,3,4] y)" +
         extra_output + R"() {
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  c = Constant <value = float {2}> ()
  d = Div(s, c)
  p = )" +
         softmax + R"(
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
  auto out =
      interp.run({{"q", ir::RuntimeValue::of(ops::make_tensor<float>({2, 2, 3, 4}, std::vector<float>(48, 0.0f)))},
                  {"k", ir::RuntimeValue::of(ops::make_tensor<float>({2, 2, 5, 4}, std::vector<float>(80, 1.0f)))},
                  {"v", ir::RuntimeValue::of(ops::make_tensor<float>({2, 2, 5, 4}, v))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  ASSERT_EQ(y.size(), 48u);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], 8.0f + static_cast<float>(i % 4), 1e-5) << i;  // mean of 4j+e, j<5
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
<ir_version: 10, opset_import: ["" : )" +
                     opset + R"(]>
g (float[B,4,S,4] q, float[B,2,S,4] k, float[B,2,S,4] v, float[B,2,P,4] pk, float[B,2,P,4] pv)
  => (float[B,4,S,4] y, float[B,2,?,4] present_k, float[B,2,?,4] present_v)" +
                     extra_output + R"() {
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

const char* kAddMask =
    "zf = Constant <value = float {0}> ()\n  m = Where(gt, neg, zf)\n  m4 = Unsqueeze(m, a01)\n  x = Add(d, m4)";
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

std::string attention_reason(const std::string& text, const std::string& node) {
  return test::explain_reason(text, "fuse_attention", node);
}

TEST(FuseAttention, Refusals) {
  // Before opset 23.
  EXPECT_EQ(count_ops(*simplify_text(plain("22")).model->graph, "Attention"), 0u);
  EXPECT_EQ(attention_reason(plain("22"), "y"), "opset 22 < 23 has no Attention");
  // Softmax over the query axis.
  auto axis2 = simplify_text(plain("23", "Softmax <axis = 2> (d)"));
  EXPECT_EQ(count_ops(*axis2.model->graph, "Attention"), 0u);
  expect_same_outputs(axis2);
  EXPECT_EQ(attention_reason(plain("23", "Softmax <axis = 2> (d)"), "y"), "the Softmax is not over the last axis");
  // The probabilities are a graph output too.
  auto shared = simplify_text(plain("23", "Softmax <axis = -1> (d)", ", float[2,2,3,5] p"));
  EXPECT_EQ(count_ops(*shared.model->graph, "Attention"), 0u);
  expect_same_outputs(shared);
  // The query positions miss the cache's length: a mask that is not is_causal's.
  std::string top_left = decoder(kAddMask, "rows = Identity(r0)");
  auto tl = simplify_text(top_left);
  EXPECT_EQ(count_ops(*tl.model->graph, "Attention"), 0u);
  expect_same_outputs(tl, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  EXPECT_EQ(attention_reason(top_left, "y"),
            "the mask is not a causal mask: the query positions are not Range(0, S, 1) + the cache's length along the "
            "query axis");
  // NEG too small to exclude a key.
  std::string weak = decoder(kWhereMask, "rows = Add(r0, p_len)", "neg = Constant <value = float {-1}> ()");
  auto w = simplify_text(weak);
  EXPECT_EQ(count_ops(*w.model->graph, "Attention"), 0u);
  EXPECT_EQ(attention_reason(weak, "y"), "the Where's other branch is not a constant of -inf or at most -1e4");
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
  EXPECT_EQ(attention_reason(padding, "y"), "the scores' Add is not of a causal mask Where(cond, NEG, 0)");
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
  EXPECT_EQ(attention_reason(heads, "y"), "the head counts or head sizes are not constants with Hq a multiple of Hkv");
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

// GPT-2 as torch exports `masked_fill(~tril(ones(S, S, bool)), -inf)` (gpt2_tiny):
// Where(Not(Trilu(ConstantOfShape([S, S], true))), NEG, scores), no cache. `tri` makes t (true
// where allowed or masked, as the Where reads it) from `ones`.
std::string tril_model(const std::string& tri = "tl = Trilu <upper = 0> (ones)\n    t = Not(tl)",
                       const std::string& where = "x = Where(t, neg, d)",
                       const std::string& neg = "neg = Constant <value = float {-3.4028234663852886e38}> ()") {
  return R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[B,2,S,4] q, float[B,2,S,4] k, float[B,2,S,4] v) => (float[B,2,S,4] y) {
    kt = Transpose <perm = [0, 1, 3, 2]> (k)
    s = MatMul(q, kt)
    c = Constant <value = float {2}> ()
    d = Div(s, c)
    sq = Shape(q)
    two = Constant <value = int64[1] {2}> ()
    three = Constant <value = int64[1] {3}> ()
    s1 = Slice(sq, two, three)
    ss = Concat <axis = 0> (s1, s1)
    ones = ConstantOfShape <value = bool[1] {1}> (ss)
    )" + tri +
         R"(
    )" + neg +
         R"(
    )" + where +
         R"(
    p = Softmax <axis = -1> (x)
    y = MatMul(p, v)
}
)";
}

TEST(FuseAttention, TriluOfOnesIsCausal) {
  auto s = simplify_text(tril_model("tl = Trilu <upper = 0> (ones)\n    t = Not(tl)", "x = Where(t, neg, d)", kNegInf));
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(a->attr_int("is_causal", 0), 1);
  EXPECT_EQ(a->num_inputs(), 3u);
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 5}});
  expect_same_outputs(s, 1, {{"B", 1}, {"S", 1}});
  // Exact values: Q = 0 weighs the allowed keys alike: query i gets the mean of V's rows 0..i.
  eval::Interpreter interp(*s.model);
  std::vector<float> v(1 * 2 * 4 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i / 4) % 4);  // row j of a head: j
  auto out =
      interp.run({{"q", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 4, 4}, std::vector<float>(32, 0.0f)))},
                  {"k", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 4, 4}, std::vector<float>(32, 1.0f)))},
                  {"v", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 4, 4}, v))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  ASSERT_EQ(y.size(), 32u);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], static_cast<float>((i / 4) % 4) / 2, 1e-6) << i;
  // triu(ones, 1) marks the masked keys itself; the Where's branches swapped around a Not.
  auto up2 = simplify_text(tril_model("one = Constant <value = int64 {1}> ()\n    t = Trilu <upper = 1> (ones, one)"));
  ASSERT_TRUE(only_attention(up2)) << up2.printed;
  EXPECT_EQ(only_attention(up2)->attr_int("is_causal", 0), 1);
  expect_same_outputs(up2, 2, {{"B", 2}, {"S", 5}});
  auto kept = simplify_text(tril_model("t = Trilu <upper = 0> (ones)", "x = Where(t, d, neg)"));
  ASSERT_TRUE(only_attention(kept)) << kept.printed;
  expect_same_outputs(kept, 2, {{"B", 2}, {"S", 5}});
}

TEST(FuseAttention, TriluRefusals) {
  // The diagonal moved: query i also sees key i + 1.
  std::string shifted =
      tril_model("one = Constant <value = int64 {1}> ()\n    tl = Trilu <upper = 0> (ones, one)\n    t = Not(tl)");
  auto sh = simplify_text(shifted);
  EXPECT_EQ(count_ops(*sh.model->graph, "Attention"), 0u) << sh.printed;
  expect_same_outputs(sh, 2, {{"B", 2}, {"S", 5}});
  EXPECT_EQ(attention_reason(shifted, "y"),
            "the mask is not a causal mask: the Trilu's diagonal is not the cache's length");
  // NEG where the lower triangle is (an anti-causal mask).
  std::string anti = tril_model("t = Trilu <upper = 0> (ones)");
  auto an = simplify_text(anti);
  EXPECT_EQ(count_ops(*an.model->graph, "Attention"), 0u) << an.printed;
  EXPECT_EQ(attention_reason(anti, "y"), "the mask is not a causal mask: the NEG branch is on the allowed side");
  // A fill that does not exclude a key: -1 instead of -inf.
  std::string weak = tril_model("tl = Trilu <upper = 0> (ones)\n    t = Not(tl)",
                                "m1 = Constant <value = float {-1}> ()\n    x = Where(t, m1, d)");
  auto wk = simplify_text(weak);
  EXPECT_EQ(count_ops(*wk.model->graph, "Attention"), 0u) << wk.printed;
  expect_same_outputs(wk, 2, {{"B", 2}, {"S", 5}});
  EXPECT_EQ(attention_reason(weak, "y"), "the Where's other branch is not a constant of -inf or at most -1e4");
}

// M x M lower-triangular bools, one element flipped when flip_row >= 0 (row flip_row, key 0).
std::string tril_elements(int64_t M, int64_t flip_row = -1) {
  std::string out;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < M; ++j)
      out += std::string(out.empty() ? "" : ", ") + (((j <= i) != (i == flip_row && j == 0)) ? "1" : "0");
  return out;
}

// HF GPT-2's attention with a cache: Where(bias[:, :, T - S : T, :T], scores, finfo.min) where
// bias is a registered [1, 1, M, M] lower-triangular buffer and T is read from Shape(present).
std::string sliced_buffer(int64_t M = 16, const std::string& rows_start = "start = Sub(t1, s1)\n  rend = Identity(t1)",
                          const std::string& where = "x = Where(m, d, neg)", int64_t flip_row = -1) {
  std::string bias = tril_elements(M, flip_row);
  std::string m = std::to_string(M);
  return R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[B,2,S,4] q, float[B,2,S,4] k, float[B,2,S,4] v, float[B,2,P,4] pk, float[B,2,P,4] pv)
  => (float[B,2,S,4] y, float[B,2,?,4] present_k, float[B,2,?,4] present_v) {
  present_k = Concat <axis = -2> (pk, k)
  present_v = Concat <axis = -2> (pv, v)
  kt = Transpose <perm = [0, 1, 3, 2]> (present_k)
  s = MatMul(q, kt)
  c = Constant <value = float {2}> ()
  d = Div(s, c)
  sv = Shape(present_v)
  two = Constant <value = int64[1] {2}> ()
  three = Constant <value = int64[1] {3}> ()
  zero1 = Constant <value = int64[1] {0}> ()
  t1 = Slice(sv, two, three)
  sq = Shape(q)
  s1 = Slice(sq, two, three)
  )" + rows_start +
         R"(
  bias = Constant <value = bool[1,1,)" +
         m + "," + m + "] {" + bias + R"(}> ()
  r = Slice(bias, start, rend, two)
  m = Slice(r, zero1, t1, three)
  neg = Constant <value = float {-3.4028234663852886e38}> ()
  )" + where +
         R"(
  p = Softmax <axis = -1> (x)
  y = MatMul(p, present_v)
}
)";
}

TEST(FuseAttention, SlicedCausalBufferWithCache) {
  auto s = simplify_text(sliced_buffer());
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_EQ(s.nodes(), 1u) << s.printed;  // the slices and the Shape of the cache go with it
  EXPECT_EQ(a->attr_int("is_causal", 0), 1);
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 0.5f);
  ASSERT_EQ(a->num_inputs(), 6u);
  EXPECT_EQ(a->input(4)->name(), "pk");
  ASSERT_EQ(a->num_outputs(), 3u);
  EXPECT_EQ(a->output(1)->name(), "present_k");  // graph outputs keep their names
  EXPECT_EQ(a->output(2)->name(), "present_v");
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  expect_same_outputs(s, 1, {{"B", 1}, {"S", 1}, {"P", 9}});  // a decode step
  expect_same_outputs(s, 1, {{"B", 2}, {"S", 4}, {"P", 0}});  // an empty cache
  // The Where written the other way round: Where(Not(mask), NEG, scores).
  auto n = simplify_text(
      sliced_buffer(16, "start = Sub(t1, s1)\n  rend = Identity(t1)", "nm = Not(m)\n  x = Where(nm, neg, d)"));
  ASSERT_TRUE(only_attention(n)) << n.printed;
  expect_same_outputs(n, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
}

TEST(FuseAttention, ScaleAfterTheMask) {
  // GPT-J: Softmax(Where(mask, Q Kᵀ, finfo.min) / 4): the scale 1/4, the fill min / 4.
  const std::string rows = "start = Sub(t1, s1)\n  rend = Identity(t1)";
  auto s = simplify_text(
      sliced_buffer(16, rows, "c4 = Constant <value = float {4}> ()\n  w0 = Where(m, s, neg)\n  x = Div(w0, c4)"));
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_EQ(a->attr_int("is_causal", 0), 1);
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 0.25f);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  expect_same_outputs(s, 1, {{"B", 1}, {"S", 1}, {"P", 9}});
  // A fill of -1e4 divided by 4 no longer excludes a key for certain.
  std::string weak = sliced_buffer(16, rows,
                                   "c4 = Constant <value = float {4}> ()\n  n4 = Constant <value = float {-1e4}> ()\n"
                                   "  w0 = Where(m, s, n4)\n  x = Div(w0, c4)");
  auto w = simplify_text(weak);
  EXPECT_EQ(count_ops(*w.model->graph, "Attention"), 0u) << w.printed;
  expect_same_outputs(w, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  EXPECT_EQ(attention_reason(weak, "y"), "the Where's other branch is not a constant of -inf or at most -1e4");
}

TEST(FuseAttention, SlicedBufferRefusals) {
  // One element of the buffer is not the lower triangle's (row 5 hides key 0).
  std::string flipped = sliced_buffer(16, "start = Sub(t1, s1)\n  rend = Identity(t1)", "x = Where(m, d, neg)", 5);
  auto f = simplify_text(flipped);
  EXPECT_EQ(count_ops(*f.model->graph, "Attention"), 0u) << f.printed;
  expect_same_outputs(f, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  EXPECT_EQ(attention_reason(flipped, "y"), "the mask is not a causal mask: the sliced buffer is not lower-triangular");
  // Rows from 0: the top-left mask, which is not is_causal's with a cache.
  std::string top = sliced_buffer(16, "start = Identity(zero1)\n  rend = Identity(s1)");
  auto t = simplify_text(top);
  EXPECT_EQ(count_ops(*t.model->graph, "Attention"), 0u) << t.printed;
  expect_same_outputs(t, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
  EXPECT_EQ(attention_reason(top, "y"),
            "the mask is not a causal mask: the buffer's slice is not rows [P, T) and columns [0, T) with T = P + S");
  // NEG where the buffer allows.
  std::string anti = sliced_buffer(16, "start = Sub(t1, s1)\n  rend = Identity(t1)", "x = Where(m, neg, d)");
  EXPECT_EQ(count_ops(*simplify_text(anti).model->graph, "Attention"), 0u);
  EXPECT_EQ(attention_reason(anti, "y"), "the mask is not a causal mask: the NEG branch is on the allowed side");
  // A fill of -10 does not exclude a key.
  std::string weak = R"(neg2 = Constant <value = float {-10}> ()
  x = Where(m, d, neg2))";
  EXPECT_EQ(
      count_ops(*simplify_text(sliced_buffer(16, "start = Sub(t1, s1)\n  rend = Identity(t1)", weak)).model->graph,
                "Attention"),
      0u);
}

TEST(FuseAttention, CacheShapeReadOutsideThePatternKeepsTheCache) {
  // The cache's Shape also feeds a graph output: it would outlive the pattern, so the cache
  // stays Concats and the offset mask cannot be said.
  std::string text = sliced_buffer(16, "start = Sub(t1, s1)\n  rend = Identity(t1)", "x = Where(m, d, neg)");
  text.replace(text.find("float[B,2,?,4] present_v)"), 25, "float[B,2,?,4] present_v, int64[1] t1)");
  auto s = simplify_text(text);
  EXPECT_EQ(count_ops(*s.model->graph, "Attention"), 0u) << s.printed;
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 3}, {"P", 4}});
}

TEST(FuseAttention, SlicedBufferInsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[1,2,S,4] q, float[1,2,S,4] k, float[1,2,S,4] v) => (float[1,2,S,4] y) {
  y = If(c) <then_branch = t () => (float[1,2,S,4] o) {
      kt = Transpose <perm = [0, 1, 3, 2]> (k)
      s = MatMul(q, kt)
      two = Constant <value = int64[1] {2}> ()
      three = Constant <value = int64[1] {3}> ()
      zero1 = Constant <value = int64[1] {0}> ()
      sq = Shape(q)
      n = Slice(sq, two, three)
      bias = Constant <value = bool[1,1,8,8] {)" +
                         tril_elements(8) + R"(}> ()
      r = Slice(bias, zero1, n, two)
      m = Slice(r, zero1, n, three)
      neg = Constant <value = float {-1e9}> ()
      x = Where(m, s, neg)
      p = Softmax <axis = -1> (x)
      o = MatMul(p, v)
    }, else_branch = e () => (float[1,2,S,4] o2) { o2 = Neg(q) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Attention"), 1u) << s.printed;
  expect_same_outputs(s, 2, {{"S", 3}});
  expect_same_outputs(s, 2, {{"S", 8}});
}

// A static export folds the mask to a constant: its elements are the proof.
std::string static_mask(const std::string& elements) {
  return R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[1,2,3,4] q, float[1,2,3,4] k, float[1,2,3,4] v) => (float[1,2,3,4] y) {
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  m = Constant <value = bool[1,1,3,3] {)" +
         elements + R"(}> ()
  neg = Constant <value = float {-1e9}> ()
  x = Where(m, s, neg)
  p = Softmax <axis = -1> (x)
  y = MatMul(p, v)
}
)";
}

TEST(FuseAttention, ConstantCausalMask) {
  auto s = simplify_text(static_mask(tril_elements(3)));
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_EQ(a->attr_int("is_causal", 0), 1);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  expect_same_outputs(s);
  // Row 2 also hides key 0: not the causal mask.
  std::string holed = static_mask(tril_elements(3, 2));
  auto h = simplify_text(holed);
  EXPECT_EQ(count_ops(*h.model->graph, "Attention"), 0u) << h.printed;
  expect_same_outputs(h);
  EXPECT_EQ(
      attention_reason(holed, "y"),
      "the mask is not a causal mask: the constant mask is not [1, .., S, T] selecting NEG exactly where key > query + "
      "the cache's length");
}

// fuse_attention_3d: the heads' split ([B, S, 8] -> [B, S, 2, 4] -> BNSH) and merge around the
// Attention fuse_attention makes become its 3D layout. `outs` adds graph outputs.
std::string three_d(const std::string& merge_shape = "int64[3] {0, 0, 8}", const std::string& outs = "",
                    const std::string& opset = "23") {
  return R"(
<ir_version: 10, opset_import: ["" : )" +
         opset + R"(]>
g (float[B,S,8] q3, float[B,T,8] k3, float[B,T,8] v3) => (float[B,S,8] y)" +
         outs + R"() {
  heads = Constant <value = int64[4] {0, 0, 2, 4}> ()
  qr = Reshape(q3, heads)
  q = Transpose <perm = [0, 2, 1, 3]> (qr)
  kr = Reshape(k3, heads)
  k = Transpose <perm = [0, 2, 1, 3]> (kr)
  vr = Reshape(v3, heads)
  v = Transpose <perm = [0, 2, 1, 3]> (vr)
  kt = Transpose <perm = [0, 1, 3, 2]> (k)
  s = MatMul(q, kt)
  c = Constant <value = float {2}> ()
  d = Div(s, c)
  p = Softmax <axis = -1> (d)
  o = MatMul(p, v)
  ot = Transpose <perm = [0, 2, 1, 3]> (o)
  merged = Constant <value = )" +
         merge_shape + R"(> ()
  y = Reshape(ot, merged)
}
)";
}

TEST(FuseAttention3d, SplitAndMergeBecomeThe3dLayout) {
  auto s = simplify_text(three_d());
  const ir::Node* a = only_attention(s);
  ASSERT_TRUE(a) << s.printed;
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(a->attr_int("q_num_heads", 0), 2);
  EXPECT_EQ(a->attr_int("kv_num_heads", 0), 2);
  EXPECT_FLOAT_EQ(a->attr_float("scale", 0), 0.5f);
  EXPECT_EQ(a->input(0)->name(), "q3");
  EXPECT_EQ(a->input(1)->name(), "k3");
  EXPECT_EQ(a->input(2)->name(), "v3");
  EXPECT_EQ(a->output(0)->name(), "y");  // the graph output keeps its name
  expect_same_outputs(s, 2, {{"B", 2}, {"S", 3}, {"T", 5}});
  expect_same_outputs(s, 1, {{"B", 1}, {"S", 1}, {"T", 7}});
  // Exact values: Q = 0 weighs the keys alike: y[b, s, h * 4 + e] is the mean over t of
  // v3[b, t, h * 4 + e] = 10 t + h * 4 + e, that is 10 (T - 1) / 2 + h * 4 + e.
  eval::Interpreter interp(*s.model);
  std::vector<float> v(1 * 5 * 8);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(10 * (i / 8) + i % 8);
  auto out = interp.run({{"q3", ir::RuntimeValue::of(ops::make_tensor<float>({1, 3, 8}, std::vector<float>(24, 0.0f)))},
                         {"k3", ir::RuntimeValue::of(ops::make_tensor<float>({1, 5, 8}, std::vector<float>(40, 1.0f)))},
                         {"v3", ir::RuntimeValue::of(ops::make_tensor<float>({1, 5, 8}, v))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  std::vector<float> y = out.value()[0].tensor.to_vector<float>();
  ASSERT_EQ(y.size(), 24u);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], 20.0f + static_cast<float>(i % 8), 1e-5) << i;
}

TEST(FuseAttention3d, Refusals) {
  // The merge is not [B, S, Hq * Dv]: the heads go onto the sequence axis.
  std::string odd = three_d("int64[3] {0, -1, 4}");
  auto o = simplify_text(odd);
  const ir::Node* a = only_attention(o);
  ASSERT_TRUE(a) << o.printed;  // fuse_attention still fires, in 4D
  EXPECT_EQ(a->attr("q_num_heads"), nullptr) << o.printed;
  expect_same_outputs(o, 2, {{"B", 2}, {"S", 3}, {"T", 5}});
  // The heads' Transpose of Y is a graph output too: it stays, and so does the 4D Attention.
  auto t = simplify_text(three_d("int64[3] {0, 0, 8}", ", float[B,S,2,4] ot"));
  ASSERT_TRUE(only_attention(t)) << t.printed;
  EXPECT_EQ(only_attention(t)->attr("q_num_heads"), nullptr) << t.printed;
  expect_same_outputs(t, 2, {{"B", 2}, {"S", 3}, {"T", 5}});
  // Before opset 23 there is no Attention at all.
  EXPECT_EQ(count_ops(*simplify_text(three_d("int64[3] {0, 0, 8}", "", "22")).model->graph, "Attention"), 0u);
}

TEST(FuseAttention3d, InsideABranch) {
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[1,3,8] q3, float[1,3,8] k3, float[1,3,8] v3) => (float[1,3,8] y) {
  y = If(c) <then_branch = t () => (float[1,3,8] o3) {
      heads = Constant <value = int64[4] {0, 0, 2, 4}> ()
      qr = Reshape(q3, heads)
      q = Transpose <perm = [0, 2, 1, 3]> (qr)
      kr = Reshape(k3, heads)
      k = Transpose <perm = [0, 2, 1, 3]> (kr)
      vr = Reshape(v3, heads)
      v = Transpose <perm = [0, 2, 1, 3]> (vr)
      kt = Transpose <perm = [0, 1, 3, 2]> (k)
      s = MatMul(q, kt)
      p = Softmax <axis = -1> (s)
      o = MatMul(p, v)
      ot = Transpose <perm = [0, 2, 1, 3]> (o)
      merged = Constant <value = int64[3] {0, 0, 8}> ()
      o3 = Reshape(ot, merged)
    }, else_branch = e () => (float[1,3,8] o4) { o4 = Neg(q3) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->num_nodes(), 1u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Attention"), 1u) << s.printed;
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
