// fuse_rotary_embedding_bshd: GPT-J's rotary, applied in the [B, S, H, D] layout before the
// heads' Transpose with its tables repeat_interleave'd after the lookup, becomes one
// RotaryEmbedding-23 of the transposed x; refusals, a graph-output case and a subgraph case.
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

// GPT-J's rotary as torch 1.13 exports HF's GPTJAttention, before the heads' Transpose: one
// [max_pos, R] table, sin then cos, gathered by position ids and split; each half
// repeat_interleave'd after the lookup (a Split into columns, Unsqueeze, Expand to 2, Reshape,
// Concat); rotate_every_two on x[.., :R] of x [B, S, H, D] = [B, S, 2, 6] with R = 4, the rest
// passed through, then Transpose [0, 2, 1, 3]. Row 0 is the identity; row 1 turns pair 0 by 90
// degrees ((a, b) -> (-b, a)) and leaves pair 1; row 2 some angles.
const char* kGptjTable = "float[3,4] tab = {0, 0, 1, 1, 1, 0, 0, 1, 0.5, 0.25, 0.75, -0.5}";

std::string gptj_cone(const std::string& half, const std::string& p, const std::string& order) {
  return "  " + p + "u = Unsqueeze(" + half + ", ax2)\n  " + p + "0, " + p + "1 = Split <axis = 3> (" + p +
         "u, ones)\n  " + p + "0u = Unsqueeze(" + p + "0, ax4)\n  " + p + "0e = Expand(" + p + "0u, eshape)\n  " + p +
         "0r = Reshape(" + p + "0e, rshape)\n  " + p + "1u = Unsqueeze(" + p + "1, ax4)\n  " + p + "1e = Expand(" + p +
         "1u, eshape)\n  " + p + "1r = Reshape(" + p + "1e, rshape)\n  " + p + " = Concat <axis = 3> (" + order + ")\n";
}

// whole: R = D = 4 (no pass-through); sin_order: the sin cone's Concat inputs.
std::string gptj(bool whole = false, const std::string& sin_order = "sn0r, sn1r",
                 const std::string& pos_type = "int64[B,S] pos", const std::string& extra_output = "") {
  const std::string d = whole ? "4" : "6";
  std::string text = R"(
<ir_version: 10, opset_import: ["" : 23]>
g (float[B,S,2,)" + d +
                     "] x, " + pos_type + ") => (float[B,2,S," + d + "] y" + extra_output + ")\n  <" + kGptjTable +
                     R"(> {
  g = Gather <axis = 0> (tab, pos)
  two = Constant <value = int64[2] {2, 2}> ()
  sinh, cosh = Split <axis = -1> (g, two)
  ax2 = Constant <value = int64[1] {2}> ()
  ax4 = Constant <value = int64[1] {4}> ()
  ones = Constant <value = int64[2] {1, 1}> ()
  eshape = Constant <value = int64[5] {1, 1, 1, 1, 2}> ()
  rshape = Constant <value = int64[4] {0, 0, 1, -1}> ()
)" + gptj_cone("sinh", "sn", sin_order) +
                     gptj_cone("cosh", "cs", "cs0r, cs1r") + R"(
  z = Constant <value = int64[1] {0}> ()
  four = Constant <value = int64[1] {4}> ()
  one = Constant <value = int64[1] {1}> ()
  st = Constant <value = int64[1] {2}> ()
  e = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {3}> ()
  axm = Constant <value = int64[1] {-1}> ()
)";
  text += whole ? "  xr = Identity(x)\n" : "  xr = Slice(x, z, four, ax)\n  xp = Slice(x, four, e, ax)\n";
  text += R"(  ev = Slice(xr, z, e, ax, st)
  od = Slice(xr, one, e, ax, st)
  nod = Neg(od)
  a = Unsqueeze(nod, axm)
  b = Unsqueeze(ev, axm)
  c = Concat <axis = -1> (a, b)
  fshape = Constant <value = int64[4] {0, 0, 2, 4}> ()
  rot = Reshape(c, fshape)
  m1 = Mul(xr, cs)
  m2 = Mul(rot, sn)
  r = Add(m1, m2)
)";
  text += whole ? "  y = Transpose <perm = [0, 2, 1, 3]> (r)\n}\n"
                : "  cat = Concat <axis = -1> (r, xp)\n  y = Transpose <perm = [0, 2, 1, 3]> (cat)\n}\n";
  return text;
}

std::string gptj_reason(const std::string& text) {
  auto m = test::parse(text);
  passes::SimplifyOptions o;
  if (!passes::simplify(*m, o).is_ok()) return "(simplify failed)";
  for (const auto& [rule, why] : passes::explain(*m, "y", o))
    if (rule == "fuse_rotary_embedding_bshd") return why;
  return "(not listed)";
}

TEST(FuseRotaryEmbeddingBshd, GptjBeforeTheTransposeIsOneNode) {
  for (bool whole : {false, true}) {
    SCOPED_TRACE(whole ? "the whole head" : "partial, R = 4 of 6");
    auto s = simplify_text(gptj(whole));
    ASSERT_EQ(count_ops(*s.model->graph, "RotaryEmbedding"), 1u) << s.printed;
    ASSERT_EQ(s.nodes(), 2u) << s.printed;  // the Transpose of x and the op
    const ir::Node* t = s.model->graph->first_node();
    EXPECT_EQ(t->op_type, "Transpose");
    EXPECT_EQ(t->input(0)->name(), "x");
    const ir::Node* r = s.model->graph->outputs()[0]->producer();
    EXPECT_EQ(r->op_type, "RotaryEmbedding");
    EXPECT_EQ(r->input(0), t->output(0));
    EXPECT_EQ(r->input(3)->name(), "pos");
    EXPECT_EQ(r->attr_int("interleaved", 0), 1);
    EXPECT_EQ(r->attr_int("rotary_embedding_dim", 0), whole ? 0 : 4);
    const ir::Tensor* cos = r->input(1)->initializer();
    const ir::Tensor* sin = r->input(2)->initializer();
    ASSERT_TRUE(cos && sin);
    EXPECT_EQ(cos->dims(), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(cos->to_vector<float>(), (std::vector<float>{1, 1, 0, 1, 0.75, -0.5}));
    EXPECT_EQ(sin->to_vector<float>(), (std::vector<float>{0, 0, 1, 0, 0.5, 0.25}));
    EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
    expect_same_outputs(s, 3, {{"B", 2}, {"S", 3}});
    // Exact values: x [1, 2, 2, D] counting from 1; position 0 leaves it, position 1 turns
    // pair 0 ((a, b) -> (-b, a)); y is [1, 2 heads, 2 positions, D].
    const int64_t d = whole ? 4 : 6;
    std::vector<float> x(static_cast<size_t>(4 * d));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
    eval::Interpreter interp(*s.model);
    auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({1, 2, 2, d}, x))},
                           {"pos", ir::RuntimeValue::of(ops::make_tensor<int64_t>({1, 2}, {0, 1}))}});
    ASSERT_TRUE(out.is_ok()) << out.status().message();
    const std::vector<float> y = out.value()[0].tensor.to_vector<float>();
    ASSERT_EQ(y.size(), x.size());
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t p = 0; p < 2; ++p)
        for (int64_t j = 0; j < d; ++j) {
          auto at = [&](int64_t jj) { return x[static_cast<size_t>((p * 2 + h) * d + jj)]; };
          const float want = p == 0 || j >= 2 ? at(j) : j == 0 ? -at(1) : at(0);
          EXPECT_EQ(y[static_cast<size_t>((h * 2 + p) * d + j)], want) << h << " " << p << " " << j;
        }
  }
}

TEST(FuseRotaryEmbeddingBshd, Refusals) {
  // The sin cone's pieces in another order: not repeat_interleave of the columns.
  auto swapped = simplify_text(gptj(false, "sn1r, sn0r"));
  EXPECT_EQ(count_ops(*swapped.model->graph, "RotaryEmbedding"), 0u) << swapped.printed;
  expect_same_outputs(swapped, 2, {{"B", 2}, {"S", 3}});
  EXPECT_EQ(gptj_reason(gptj(false, "sn1r, sn0r")),
            "cos and sin are not GPT-J's repeat_interleave of columns of one table gathered by position ids");
  // int32 position ids (RotaryEmbedding takes int64 only).
  auto i32 = simplify_text(gptj(false, "sn0r, sn1r", "int32[B,S] pos"));
  EXPECT_EQ(count_ops(*i32.model->graph, "RotaryEmbedding"), 0u) << i32.printed;
  EXPECT_EQ(gptj_reason(gptj(false, "sn0r, sn1r", "int32[B,S] pos")),
            "the position ids are not int64 [B, S] of x's batch and length");
  // The rotated part is a graph output too.
  auto shared = simplify_text(gptj(false, "sn0r, sn1r", "int64[B,S] pos", ", float[B,S,2,4] r"));
  EXPECT_EQ(count_ops(*shared.model->graph, "RotaryEmbedding"), 0u) << shared.printed;
  expect_same_outputs(shared, 2, {{"B", 2}, {"S", 3}});
  // Off for ONNX Runtime's WASM build, as the other rotary fusions.
  auto m = test::parse(gptj());
  passes::SimplifyOptions o;
  o.target = "wasm";
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  EXPECT_EQ(count_ops(*m->graph, "RotaryEmbedding"), 0u);
}

TEST(FuseRotaryEmbeddingBshd, InsideABranch) {
  std::string body = gptj();
  const size_t open = body.find("> {") + 3;
  body = body.substr(open, body.rfind('}') - open);
  auto s = simplify_text(R"(
<ir_version: 10, opset_import: ["" : 23]>
g (bool c, float[B,S,2,6] x, int64[B,S] pos) => (float[B,2,S,6] out)
  <)" + std::string(kGptjTable) +
                         R"(> {
  out = If(c) <then_branch = t () => (float[B,2,S,6] y) {
)" + body + R"(
    }, else_branch = e () => (float[B,2,S,6] o2) { o2 = Transpose <perm = [0, 2, 1, 3]> (x) }>
}
)");
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_TRUE(iff && iff->op_type == "If") << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "RotaryEmbedding"), 1u) << s.printed;
  expect_same_outputs(s, 3, {{"B", 2}, {"S", 3}});
}

}  // namespace
}  // namespace onnxtrim
