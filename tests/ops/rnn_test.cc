// Unit tests of the recurrent family (RNN, GRU, LSTM): small hand-checkable values, directions,
// sequence_lens, activations with alpha/beta, layout, and shape rules on symbolic dims.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;
using test::dims;
using test::inferred;
using test::run;
using test::vals;

// Within 1e-6 (the shared expect_near allows 1e-5).
void expect_close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// ------------------------------------------------------------------ RNN

TEST(RnnRnn, ReluAccumulates) {
  // h1 = relu(1 + 0) = 1, h2 = relu(2 + 1) = 3.
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[2,1,1] x, float[1,1,1] w, float[1,1,1] r) => (float[2,1,1,1] y, float[1,1,1] yh) {
                   y, yh = RNN<hidden_size = 1, activations = ["Relu"]>(x, w, r) })",
      {{"x", make_tensor<float>({2, 1, 1}, {1, 2})},
       {"w", make_tensor<float>({1, 1, 1}, {1})},
       {"r", make_tensor<float>({1, 1, 1}, {1})}});
  EXPECT_EQ(dims(r), (ops::Dims{2, 1, 1, 1}));
  expect_close(vals<float>(r, 0), {1, 3});
  expect_close(vals<float>(r, 1), {3});
}

TEST(RnnRnn, ReverseWithSequenceLensAndAffine) {
  // Affine(x) = 2x + 1, W = 1, R = 1, batch 2 with lengths 2 and 1. Batch 0 runs t=1 then t=0:
  // h = 2*(2 + 0) + 1 = 5, then 2*(1 + 5) + 1 = 13. Batch 1 runs t=0 only: 2*10 + 1 = 21 and
  // its Y at t=1 stays 0.
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[2,2,1] x, float[1,1,1] w, float[1,1,1] r, int32[2] l) => (float[2,1,2,1] y, float[1,2,1] yh) {
                   y, yh = RNN<hidden_size = 1, direction = "reverse", activations = ["Affine"], activation_alpha = [2.0], activation_beta = [1.0]>(x, w, r, , l) })",
      {{"x", make_tensor<float>({2, 2, 1}, {1, 10, 2, 20})},
       {"w", make_tensor<float>({1, 1, 1}, {1})},
       {"r", make_tensor<float>({1, 1, 1}, {1})},
       {"l", make_tensor<int32_t>({2}, {2, 1})}});
  expect_close(vals<float>(r, 0), {13, 21, 5, 0});
  expect_close(vals<float>(r, 1), {13, 21});
}

TEST(RnnRnn, ClipAndBadWeightShape) {
  // clip 0.5 bounds the pre-activation: tanh(0.5) for a large input.
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[1,1,1] x, float[1,1,1] w, float[1,1,1] r) => (float[1,1,1] yh) {
                   y, yh = RNN<hidden_size = 1, clip = 0.5>(x, w, r) })",
      {{"x", make_tensor<float>({1, 1, 1}, {100})},
       {"w", make_tensor<float>({1, 1, 1}, {1})},
       {"r", make_tensor<float>({1, 1, 1}, {1})}});
  expect_close(vals<float>(r), {std::tanh(0.5f)});
  auto bad = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[1,1,1] x, float[1,2,1] w, float[1,1,1] r) => (float[1,1,1] yh) {
                   y, yh = RNN<hidden_size = 1>(x, w, r) })",
      {{"x", make_tensor<float>({1, 1, 1}, {1})},
       {"w", make_tensor<float>({1, 2, 1}, {1, 1})},
       {"r", make_tensor<float>({1, 1, 1}, {1})}});
  EXPECT_FALSE(bad.is_ok());
}

// ------------------------------------------------------------------ GRU

TEST(RnnGru, ZeroWeightsHalveTheState) {
  // z = r = sigmoid(0) = 0.5, candidate tanh(0) = 0: H = 0.5 * H_prev each step.
  for (int lbr : {0, 1}) {
    auto r = run(
        std::string(
            R"(<ir_version: 8, opset_import: ["" : 14]> g (float[2,1,1] x, float[1,3,1] w, float[1,3,1] r, float[1,1,1] h0) => (float[2,1,1,1] y, float[1,1,1] yh) {
                   y, yh = GRU<hidden_size = 1, linear_before_reset = )") +
            std::to_string(lbr) + R"(>(x, w, r, , , h0) })",
        {{"x", make_tensor<float>({2, 1, 1}, {3, 4})},
         {"w", make_tensor<float>({1, 3, 1}, {0, 0, 0})},
         {"r", make_tensor<float>({1, 3, 1}, {0, 0, 0})},
         {"h0", make_tensor<float>({1, 1, 1}, {2})}});
    expect_close(vals<float>(r, 0), {1, 0.5f});
    expect_close(vals<float>(r, 1), {0.5f});
  }
}

TEST(RnnGru, LinearBeforeResetDiffers) {
  // With Rh = 1, Rbh = 1 and H0 = 1, X = 0: r = z = 0.5.
  //   lbr = 0: h~ = tanh(0.5 * 1 * 1 + 1) = tanh(1.5);  lbr = 1: h~ = tanh(0.5 * (1 + 1)) = tanh(1).
  //   H = 0.5 h~ + 0.5.
  for (int lbr : {0, 1}) {
    auto r = run(
        std::string(
            R"(<ir_version: 8, opset_import: ["" : 14]> g (float[1,1,1] x, float[1,3,1] w, float[1,3,1] r, float[1,6] b, float[1,1,1] h0) => (float[1,1,1] yh) {
                   y, yh = GRU<hidden_size = 1, linear_before_reset = )") +
            std::to_string(lbr) + R"(>(x, w, r, b, , h0) })",
        {{"x", make_tensor<float>({1, 1, 1}, {0})},
         {"w", make_tensor<float>({1, 3, 1}, {0, 0, 0})},
         {"r", make_tensor<float>({1, 3, 1}, {0, 0, 1})},
         {"b", make_tensor<float>({1, 6}, {0, 0, 0, 0, 0, 1})},
         {"h0", make_tensor<float>({1, 1, 1}, {1})}});
    float cand = lbr ? std::tanh(1.0f) : std::tanh(1.5f);
    expect_close(vals<float>(r), {0.5f * cand + 0.5f});
  }
}

TEST(RnnGru, InferenceBidirectionalLayout1) {
  EXPECT_EQ(
      inferred(
          R"(<ir_version: 8, opset_import: ["" : 14]> g (float[batch,seq,3] x, float[2,12,3] w, float[2,12,4] r) => (float[?,?,?,?] y, float[?,?,?] yh) {
                          y, yh = GRU<hidden_size = 4, direction = "bidirectional", layout = 1>(x, w, r) })"),
      "[batch,seq,2,4] [batch,2,4]");
}

TEST(RnnGru, InferenceOfUnknownInputShapesKeepsTheRanks) {
  // X of unknown rank (as behind an If whose branches differ in rank, which torch's squeeze(1)
  // writes): Y is still rank 4 and Y_h rank 3, their batch one unknown; without hidden_size and
  // with R unknown too, the hidden size is one unknown shared by both.
  auto m = test::parse(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[6,2,3] x0, int64[k] s, float[2,12,3] w, float[2,12,4] r, float[1,12,3] w1, float[1,12,4] r0, int64[j] s2) => (float[?,?,?,?] y, float[?,?,?] yh, float[?,?,?,?] y2, float[?,?,?] yh2) {
                          u = Reshape(x0, s)
                          y, yh = GRU<hidden_size = 4, direction = "bidirectional">(u, w, r)
                          rr = Reshape(r0, s2)
                          y2, yh2 = GRU(u, w1, rr)
                        })");
  ASSERT_TRUE(m);
  passes::InferOptions io;
  io.use_declared = false;
  passes::ShapeInference si(*m, io);
  ASSERT_TRUE(si.run().is_ok());
  const auto& outs = m->graph->outputs();
  const ops::TypeInfo* y = si.facts(outs[0]);
  const ops::TypeInfo* yh = si.facts(outs[1]);
  const ops::TypeInfo* y2 = si.facts(outs[2]);
  const ops::TypeInfo* yh2 = si.facts(outs[3]);
  ASSERT_TRUE(y && y->shape && yh && yh->shape && y2 && y2->shape && yh2 && yh2->shape);
  ASSERT_EQ(y->shape->size(), 4u);
  ASSERT_EQ(yh->shape->size(), 3u);
  EXPECT_EQ((*y->shape)[1].str(), "2");
  EXPECT_EQ((*y->shape)[3].str(), "4");
  EXPECT_EQ((*yh->shape)[0].str(), "2");
  EXPECT_EQ((*y->shape)[2].str(), (*yh->shape)[1].str());  // one batch
  EXPECT_NE((*y->shape)[0].str(), (*y->shape)[2].str());   // seq and batch are not proved equal
  ASSERT_EQ(y2->shape->size(), 4u);
  ASSERT_EQ(yh2->shape->size(), 3u);
  EXPECT_EQ((*y2->shape)[1].str(), "1");
  EXPECT_EQ((*y2->shape)[3].str(), (*yh2->shape)[2].str());  // one hidden size
  // X of a rank the spec does not allow: nothing is claimed.
  EXPECT_EQ(
      inferred(
          R"(<ir_version: 8, opset_import: ["" : 14]> g (float[5,3] x, float[1,12,3] w, float[1,12,4] r) => (float[?,?,?,?] y) {
                          y = GRU<hidden_size = 4>(x, w, r) })"),
      "?");
}

// ------------------------------------------------------------------ LSTM

TEST(RnnLstm, ZeroWeightsWithCellState) {
  // i = f = o = 0.5, c~ = tanh(0) = 0: C1 = 0.5 * C0 = 1, H1 = 0.5 * tanh(1).
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[1,1,1] x, float[1,4,1] w, float[1,4,1] r, float[1,1,1] c0) => (float[1,1,1,1] y, float[1,1,1] yh, float[1,1,1] yc) {
                   y, yh, yc = LSTM<hidden_size = 1>(x, w, r, , , , c0) })",
      {{"x", make_tensor<float>({1, 1, 1}, {5})},
       {"w", make_tensor<float>({1, 4, 1}, {0, 0, 0, 0})},
       {"r", make_tensor<float>({1, 4, 1}, {0, 0, 0, 0})},
       {"c0", make_tensor<float>({1, 1, 1}, {2})}});
  expect_close(vals<float>(r, 0), {0.5f * std::tanh(1.0f)});
  expect_close(vals<float>(r, 1), {0.5f * std::tanh(1.0f)});
  expect_close(vals<float>(r, 2), {1});
}

TEST(RnnLstm, PeepholesInputForgetAndLayout1Bidirectional) {
  // Forget-gate peephole Pf = 100 saturates f to 1 (C0 = 1): C stays 1 + i * 0, H = o * tanh(1)
  // with o = sigmoid(Po * C) = sigmoid(0) = 0.5. Both directions, layout 1 ([batch, dirs, hidden]).
  auto r = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[1,1,1] x, float[2,4,1] w, float[2,4,1] r, float[1,2,1] c0, float[2,3] p) => (float[1,2,1] yh, float[1,2,1] yc) {
                   y, yh, yc = LSTM<hidden_size = 1, direction = "bidirectional", layout = 1>(x, w, r, , , , c0, p) })",
      {{"x", make_tensor<float>({1, 1, 1}, {0})},
       {"w", make_tensor<float>({2, 4, 1}, {0, 0, 0, 0, 0, 0, 0, 0})},
       {"r", make_tensor<float>({2, 4, 1}, {0, 0, 0, 0, 0, 0, 0, 0})},
       {"c0", make_tensor<float>({1, 2, 1}, {1, 1})},
       {"p", make_tensor<float>({2, 3}, {0, 0, 100, 0, 0, 100})}});
  EXPECT_EQ(dims(r, 0), (ops::Dims{1, 2, 1}));
  expect_close(vals<float>(r, 1), {1, 1});
  expect_close(vals<float>(r, 0), {0.5f * std::tanh(1.0f), 0.5f * std::tanh(1.0f)});
  // input_forget: f = 1 - i = 0.5 whatever the peephole says: C = 0.5.
  auto c = run(
      R"(<ir_version: 8, opset_import: ["" : 14]> g (float[1,1,1] x, float[1,4,1] w, float[1,4,1] r, float[1,1,1] c0, float[1,3] p) => (float[1,1,1] yc) {
                   y, yh, yc = LSTM<hidden_size = 1, input_forget = 1>(x, w, r, , , , c0, p) })",
      {{"x", make_tensor<float>({1, 1, 1}, {0})},
       {"w", make_tensor<float>({1, 4, 1}, {0, 0, 0, 0})},
       {"r", make_tensor<float>({1, 4, 1}, {0, 0, 0, 0})},
       {"c0", make_tensor<float>({1, 1, 1}, {1})},
       {"p", make_tensor<float>({1, 3}, {0, 0, 100})}});
  expect_close(vals<float>(c), {0.5f});
}

TEST(RnnLstm, InferenceSymbolic) {
  EXPECT_EQ(
      inferred(
          R"(<ir_version: 8, opset_import: ["" : 14]> g (float[seq,batch,3] x, float[2,20,3] w, float[2,20,5] r) => (float[?,?,?,?] y, float[?,?,?] yh, float[?,?,?] yc) {
                          y, yh, yc = LSTM<direction = "bidirectional">(x, w, r) })"),
      "[seq,2,batch,5] [2,batch,5] [2,batch,5]");
}

// ------------------------------------------------------------------ recurrent

TEST(RnnRnn, ReluIdentityWeights) {
  // H_t = relu(x_t + H_{t-1}): a running sum of positives; the reverse direction sums backwards.
  const char* text = R"(<ir_version: 10, opset_import: ["" : 22]>
g (float[3,1,1] x, float[1,1,1] w, float[1,1,1] r) => (float[3,1,1,1] y, float[1,1,1] h) {
  y, h = RNN<hidden_size = 1, activations = ["Relu"], direction = "DIR">(x, w, r)
})";
  std::map<std::string, ir::Tensor> feeds{{"x", make_tensor<float>({3, 1, 1}, {1, 2, 3})},
                                          {"w", make_tensor<float>({1, 1, 1}, {1})},
                                          {"r", make_tensor<float>({1, 1, 1}, {1})}};
  std::string fwd = text, rev = text;
  fwd.replace(fwd.find("DIR"), 3, "forward");
  rev.replace(rev.find("DIR"), 3, "reverse");
  auto f = run(fwd, feeds);
  EXPECT_EQ(vals<float>(f, 0), (std::vector<float>{1, 3, 6}));
  EXPECT_EQ(vals<float>(f, 1), (std::vector<float>{6}));
  auto b = run(rev, feeds);
  EXPECT_EQ(vals<float>(b, 0), (std::vector<float>{6, 5, 3}));
}

TEST(RnnLstm, ZeroWeightsAndSequenceLens) {
  // All weights 0: gates are sigmoid(0) = 0.5, c~ = tanh(0) = 0, so C and H stay 0; a
  // sequence length of 1 leaves step 2's output zero.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 22]>
g (float[2,1,1] x, float[1,4,1] w, float[1,4,1] rr, int32[1] len) => (float[2,1,1,1] y, float[1,1,1] h, float[1,1,1] c) {
  y, h, c = LSTM<hidden_size = 1>(x, w, rr, , len)
})",
               {{"x", make_tensor<float>({2, 1, 1}, {1, 2})},
                {"w", make_tensor<float>({1, 4, 1}, {0, 0, 0, 0})},
                {"rr", make_tensor<float>({1, 4, 1}, {0, 0, 0, 0})},
                {"len", make_tensor<int32_t>({1}, {1})}});
  EXPECT_EQ(vals<float>(r, 0), (std::vector<float>{0, 0}));
  EXPECT_EQ(vals<float>(r, 2), (std::vector<float>{0}));
}

TEST(RnnGru, UpdateGateOneKeepsState) {
  // A huge z bias makes z = 1: H' = H, the initial state passes through.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 22]>
g (float[1,1,1] x, float[1,3,1] w, float[1,3,1] rr, float[1,6] b, float[1,1,1] h0) => (float[1,1,1] h) {
  y, h = GRU<hidden_size = 1>(x, w, rr, b, , h0)
})",
               {{"x", make_tensor<float>({1, 1, 1}, {5})},
                {"w", make_tensor<float>({1, 3, 1}, {0, 0, 1})},
                {"rr", make_tensor<float>({1, 3, 1}, {0, 0, 0})},
                {"b", make_tensor<float>({1, 6}, {100, 0, 0, 0, 0, 0})},
                {"h0", make_tensor<float>({1, 1, 1}, {0.25f})}});
  expect_close(vals<float>(r), {0.25f}, 1e-5f);
}

}  // namespace
}  // namespace onnxtrim
