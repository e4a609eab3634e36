// Sizes the check finds by itself (issue 29): the free symbolic dims of the inputs start where
// the facts say they must (a Conv kernel, an STFT frame, a Reshape to a fixed shape, a broadcast
// against a constant dim such as a Range's) and grow (8, 64, 512, 4096) until the
// original runs, dims that look like a batch stay 1, the report says which
// sizes were used and why, and the check is skipped - naming the sizes tried and the flags to
// give - only when no size works. `onnxtrim run` sizes its inputs the same way.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "driver/sizes.h"
#include "eval/verify.h"
#include "onnxtrim/onnxtrim.hpp"
#include "api_test_util.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

using test::parse;

// The Conv weight `w` (a placeholder in the text) becomes [1, 1, k] of small values.
void conv_weight(ir::Model& m, int64_t k) {
  ir::Tensor t(ir::DataType::kFloat, {1, 1, k});
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < k; ++i) p[i] = 0.01f * static_cast<float>(i % 7) - 0.02f;
  test::set_weight(m, "w", std::move(t));
}

using test::public_model;

// A signal with unnamed dynamic dims into a Conv with a kernel of 100 inside an If (where the
// facts do not look): the check's first sizes (8, then 64) are too short for it.
constexpr const char* kUnnamedConv = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[?,1,?] x) => (float[?,1,?] y) {
  w = Constant<value = float {0}>()
  cond = Constant<value = bool {1}>()
  c = If(cond) <
    then_branch = t1 () => (float[?,1,?] o1) { o1 = Conv(x, w) },
    else_branch = t2 () => (float[?,1,?] o2) { o2 = Conv(x, w) }
  >
  one = Constant<value = float {1}>()
  y = Mul(c, one)
}
)";

// The same Conv in the main graph, and an STFT with frames of 400: the facts give the sizes.
constexpr const char* kFactsConvStft = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[?,1,?] x, float[batch,samples,1] s) => (float[?,1,?] y, float[batch,?,201,2] z) {
  w = Constant<value = float {0}>()
  c = Conv(x, w)
  one = Constant<value = float {1}>()
  y = Mul(c, one)
  step = Constant<value = int64 {160}>()
  win = Constant<value = float {0}>()
  flen = Constant<value = int64 {400}>()
  z = STFT(s, step, win, flen)
}
)";

TEST(CheckSizes, FactsGiveTheSmallestSizes) {
  auto m = parse(kFactsConvStft);
  ASSERT_TRUE(m);
  conv_weight(*m, 100);
  ir::Tensor hann(ir::DataType::kFloat, {400});
  for (int64_t i = 0; i < 400; ++i) hann.mutable_data<float>()[i] = 0.5f;
  test::set_weight(*m, "win", std::move(hann));
  auto cands = driver::size_candidates(*m, eval::InputSpec{});
  ASSERT_FALSE(cands.empty());
  EXPECT_EQ(driver::describe_sizes(cands[0]), "x[0]=1, x[2]=100, batch=1, samples=400");
  Model pm = public_model(*m);
  Report r = simplify(pm, Options{});
  const Verification& v = r.verification;
  EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
  EXPECT_EQ(v.dims, (std::map<std::string, int64_t>{{"batch", 1}, {"samples", 400}}));
  EXPECT_NE(v.sizes.find("x[2]=100, samples=400: from the facts (x[2] >= 100 for node 'producing c (Conv)'; "
                         "samples >= 400 for node 'producing z (STFT)')"),
            std::string::npos)
      << v.sizes;
}

TEST(CheckSizes, UnnamedDimsGrowUntilTheOriginalRuns) {
  auto m = parse(kUnnamedConv);
  ASSERT_TRUE(m);
  conv_weight(*m, 100);
  Model pm = public_model(*m);
  Report r = simplify(pm, Options{});
  const Verification& v = r.verification;
  EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
  EXPECT_NE(v.sizes.find("x[2]=512: the original fails on x[2]=8 and x[2]=64"), std::string::npos) << v.sizes;
  EXPECT_NE(v.sizes.find("kernel is larger than the padded input"), std::string::npos) << v.sizes;
  EXPECT_NE(v.sizes.find("x[0]=1: looks like a batch"), std::string::npos) << v.sizes;
  std::string text = r.to_text();
  EXPECT_NE(text.find("  sizes: x[2]=512"), std::string::npos) << text;
  EXPECT_NE(r.to_json().find("\"sizes\":"), std::string::npos);
  EXPECT_EQ(pm.to_text().find("Mul"), std::string::npos) << pm.to_text();  // simplified, and checked
}

// `batch` at axis 1 of an LSTM-like state and axis 0 of the signal; the signal's `seq` must be
// >= 100 (the facts say so); both batches must be equal (Concat). Before: both grew together
// (batch = 512).
constexpr const char* kNamedBatchSeq = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,seq] x, float[2,batch,4] state) => (float[batch,?] y) {
  ax1 = Constant<value = int64[1] {1}>()
  xu = Unsqueeze(x, ax1)
  w = Constant<value = float {0}>()
  c = Conv(xu, w)
  a = ReduceSum<keepdims = 0>(c, ax1)
  ax0 = Constant<value = int64[1] {0}>()
  b = ReduceSum<keepdims = 0>(state, ax0)
  ab = Concat<axis = 1>(a, b)
  one = Constant<value = float {1}>()
  y = Mul(ab, one)
}
)";

TEST(CheckSizes, BatchStaysSmallWhileSeqGrows) {
  auto m = parse(kNamedBatchSeq);
  ASSERT_TRUE(m);
  conv_weight(*m, 100);
  Model pm = public_model(*m);
  Report r = simplify(pm, Options{});
  const Verification& v = r.verification;
  EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
  EXPECT_EQ(v.dims, (std::map<std::string, int64_t>{{"batch", 1}, {"seq", 100}}));
  EXPECT_NE(v.sizes.find("seq=100: from the facts (seq >= 100 for node 'producing c (Conv)')"), std::string::npos)
      << v.sizes;
  EXPECT_NE(v.sizes.find("batch=1: looks like a batch"), std::string::npos) << v.sizes;

  // Every candidate keeps batch at 1.
  auto cands = driver::size_candidates(*m, eval::InputSpec{});
  ASSERT_EQ(cands.size(), 3u);  // seq = 100 (from the facts, at 8 and at 64), 512, 4096
  for (const auto& c : cands) EXPECT_EQ(c.spec.dims.at("batch"), 1);
  EXPECT_EQ(cands.back().spec.dims.at("seq"), 4096);
}

// Nothing named: the signal [?, ?] and an LSTM-like state [2, ?, 4] whose unnamed dim must equal
// the signal's batch (as spox writes Silero VAD). The state's dim is tried as a length, then as
// a batch.
constexpr const char* kUnnamedState = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[?,?] x, float[2,?,4] state) => (float[?,?] y) {
  ax1 = Constant<value = int64[1] {1}>()
  xu = Unsqueeze(x, ax1)
  w = Constant<value = float {0}>()
  c = Conv(xu, w)
  a = ReduceSum<keepdims = 0>(c, ax1)
  ax0 = Constant<value = int64[1] {0}>()
  b = ReduceSum<keepdims = 0>(state, ax0)
  ab = Concat<axis = 1>(a, b)
  one = Constant<value = float {1}>()
  y = Mul(ab, one)
}
)";

TEST(CheckSizes, UnclearDimsAreTriedAsLengthThenAsBatch) {
  auto m = parse(kUnnamedState);
  ASSERT_TRUE(m);
  conv_weight(*m, 100);
  auto cands = driver::size_candidates(*m, eval::InputSpec{});
  ASSERT_GE(cands.size(), 2u);
  EXPECT_EQ(driver::describe_sizes(cands[0]), "x[0]=1, x[1]=100, state[1]=8");
  EXPECT_EQ(driver::describe_sizes(cands[1]), "x[0]=1, x[1]=100, state[1]=1");
  EXPECT_EQ(cands[0].spec.shapes.at("state"), (std::vector<int64_t>{2, 8, 4}));

  Model pm = public_model(*m);
  Report r = simplify(pm, Options{});
  const Verification& v = r.verification;
  EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
  EXPECT_NE(v.sizes.find("x[1]=100, state[1]=1: the original fails on x[1]=100, state[1]=8 (node 'producing ab "
                         "(Concat)': Concat inputs differ"),
            std::string::npos)
      << v.sizes;
  EXPECT_NE(v.sizes.find("; from the facts (x[1] >= 100 for node 'producing c (Conv)')"), std::string::npos) << v.sizes;
}

// A Reshape to a fixed shape fixes the dim (the facts): seq = 21, where no size of the growth
// fits.
constexpr const char* kReshapeFixes = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[seq] x) => (float[3,7] y) {
  s = Constant<value = int64[2] {3, 7}>()
  r = Reshape(x, s)
  one = Constant<value = float {1}>()
  y = Mul(r, one)
}
)";

TEST(CheckSizes, ReshapeFixesTheDim) {
  auto m = parse(kReshapeFixes);
  ASSERT_TRUE(m);
  auto cands = driver::size_candidates(*m, eval::InputSpec{});
  ASSERT_EQ(cands.size(), 1u);
  EXPECT_EQ(driver::describe_sizes(cands[0]), "seq=21");
  Model pm = public_model(*m);
  Report r = simplify(pm, Options{});
  const Verification& v = r.verification;
  EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
  EXPECT_EQ(v.sizes, "seq=21: from the facts (seq = 21 for node 'producing r (Reshape)')");
}

// A free dim added to a Range of 37 positions (folded to a constant [37]): the broadcast fixes it.
constexpr const char* kRangeFixes = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[seq] x) => (float[seq] y) {
  start = Constant<value = float {0}>()
  limit = Constant<value = float {37}>()
  delta = Constant<value = float {1}>()
  pos = Range(start, limit, delta)
  y = Add(x, pos)
}
)";

TEST(CheckSizes, BroadcastAgainstARangeFixesTheDim) {
  auto m = parse(kRangeFixes);
  ASSERT_TRUE(m);
  auto cands = driver::size_candidates(*m, eval::InputSpec{});
  ASSERT_FALSE(cands.empty());
  EXPECT_EQ(driver::describe_sizes(cands[0]), "seq=37");
  Model pm = public_model(*m);
  Report r = simplify(pm, Options{});
  const Verification& v = r.verification;
  EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
  EXPECT_EQ(v.sizes, "seq=37: from the facts (seq = 37 for node 'producing y (Add)')");
}

// No size makes the original run (the same Reshape in an If branch, where the facts do not
// look): skipped, with the reason, the sizes tried and the flags to give; with --dim the check
// runs.
constexpr const char* kNoSizeWorks = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[seq] x) => (float[3,7] y) {
  cond = Constant<value = bool {1}>()
  r = If(cond) <
    then_branch = t1 () => (float[3,7] o1) {
      s1 = Constant<value = int64[2] {3, 7}>()
      o1 = Reshape(x, s1)
    },
    else_branch = t2 () => (float[3,7] o2) {
      s2 = Constant<value = int64[2] {3, 7}>()
      o2 = Reshape(x, s2)
    }
  >
  one = Constant<value = float {1}>()
  y = Mul(r, one)
}
)";

TEST(CheckSizes, SkippedWithTheReasonWhenNoSizeWorks) {
  auto m = parse(kNoSizeWorks);
  ASSERT_TRUE(m);
  {
    Model pm = public_model(*m);
    Report r = simplify(pm, Options{});
    const Verification& v = r.verification;
    EXPECT_FALSE(v.ran);
    EXPECT_NE(v.skipped.find("Reshape"), std::string::npos) << v.skipped;
    EXPECT_NE(v.skipped.find("sizes tried: seq=8 ... seq=4096: give sizes with --dim, --input-shape or --input"),
              std::string::npos)
        << v.skipped;
  }
  {
    Model pm = public_model(*m);
    Options o;
    o.set("dim", "seq=21");
    Report r = simplify(pm, o);
    EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.skipped << r.verification.why;
  }
}

// `onnxtrim run` without size options: the same sizes.
TEST(CheckSizes, RunFindsTheSizesToo) {
  auto m = parse(kUnnamedConv);
  ASSERT_TRUE(m);
  conv_weight(*m, 100);
  eval::Interpreter interp(*m);
  auto run = driver::run_with_sizes(interp, *m, eval::InputSpec{}, 0);
  ASSERT_TRUE(run.is_ok()) << run.status().message();
  ASSERT_EQ(run.value().outputs.size(), 1u);
  EXPECT_EQ(run.value().outputs[0].tensor.dims(), (std::vector<int64_t>{1, 1, 413}));
  EXPECT_EQ(run.value().feeds.at("x").tensor.dims(), (std::vector<int64_t>{1, 1, 512}));
  EXPECT_NE(run.value().sizes.find("x[2]=512"), std::string::npos) << run.value().sizes;

  auto bad = parse(kNoSizeWorks);
  ASSERT_TRUE(bad);
  eval::Interpreter interp2(*bad);
  auto fails = driver::run_with_sizes(interp2, *bad, eval::InputSpec{}, 0);
  ASSERT_FALSE(fails.is_ok());
  EXPECT_NE(fails.status().message().find("give sizes with --dim"), std::string::npos) << fails.status().message();
}

TEST(CheckSizes, BatchNames) {
  for (const char* n : {"batch", "batch_size", "N", "B", "bs", "BatchSize", "nbatch"})
    EXPECT_TRUE(driver::looks_like_batch(n)) << n;
  for (const char* n : {"seq", "sequence_length", "time", "height", "num_samples", "past_seq"})
    EXPECT_FALSE(driver::looks_like_batch(n)) << n;
}

}  // namespace
}  // namespace onnxtrim
