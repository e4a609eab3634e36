// Random ops in the check and in `verify` (issue 29): both models draw the same values for each
// unseeded random node they both keep (Interpreter::set_random_seed, matched by RandomIdentity);
// an output that depends on a random node without a counterpart is reported as not comparable,
// by name, and does not fail the check; seeded nodes draw from their seed as before.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "eval/interpreter.h"
#include "eval/verify.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass_manager.h"
#include "api_test_util.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

using test::parse;

// Names the node that produces each value (value -> node name), as exporters name nodes.
void name_nodes(ir::Model& m, const std::map<std::string, std::string>& names) {
  m.graph->for_each_node([&](ir::Node* n) {
    auto it = n->output(0) ? names.find(n->output(0)->name()) : names.end();
    if (it != names.end()) n->name = it->second;
  });
}

std::unique_ptr<eval::Verifier> verifier(const ir::Model& m, int samples = 2) {
  eval::VerifyOptions vo;
  vo.samples = samples;
  auto v = eval::Verifier::create(m, vo);
  EXPECT_TRUE(v.is_ok()) << v.status().message();
  return v ? std::move(v).value() : nullptr;
}

using test::public_model;

// Two unseeded RandomNormalLike, the second reading the first's result.
constexpr const char* kTwoNoises = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  n1o = RandomNormalLike(x)
  c = Constant<value = float {0.1}>()
  s1 = Mul(n1o, c)
  z = Add(x, s1)
  n2o = RandomNormalLike(z)
  y = Add(z, n2o)
}
)";

TEST(RandomCheck, VerifyAgainstItselfPassesWithTwoUnseededRandomNormalLike) {
  for (bool named : {true, false}) {
    auto m = parse(kTwoNoises);
    ASSERT_TRUE(m);
    if (named) name_nodes(*m, {{"n1o", "n1"}, {"n2o", "n2"}});
    auto v = verifier(*m);
    ASSERT_TRUE(v);
    auto rep = v->compare_with(*m);
    ASSERT_TRUE(rep.is_ok()) << rep.status().message();
    EXPECT_TRUE(rep.value().ok) << rep.value().why;
    ASSERT_EQ(rep.value().outputs.size(), 1u);
    EXPECT_EQ(rep.value().outputs[0].not_comparable, "");
    EXPECT_EQ(rep.value().outputs[0].diff.max_abs, 0.0);  // compared, and the very same draws
    std::vector<std::string> alike =
        named ? std::vector<std::string>{"RandomNormalLike 'n1'", "RandomNormalLike 'n2'"}
              : std::vector<std::string>{"RandomNormalLike (output 'n1o')", "RandomNormalLike (output 'n2o')"};
    EXPECT_EQ(rep.value().random.alike, alike);
    EXPECT_TRUE(rep.value().random.unmatched.empty());
    EXPECT_EQ(rep.value().random.summary().rfind("2 drawn alike in both models (", 0), 0u)
        << rep.value().random.summary();

    // The public verify (the CLI's `onnxtrim verify A A`): passes, and says how.
    Model a = public_model(*m);
    Verification pv = verify(a, a);
    EXPECT_TRUE(pv.ok) << pv.why;
    ASSERT_EQ(pv.outputs.size(), 1u);
    EXPECT_TRUE(pv.outputs[0].comparable);
    EXPECT_EQ(pv.random_alike, alike);
    EXPECT_NE(pv.random.find("2 drawn alike"), std::string::npos) << pv.random;
  }
}

TEST(RandomCheck, StreamDrawsAlikePerSeedAndPerRunOfANode) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] a, float[2,4] b) {
  a = RandomUniformLike(x)
  n = Constant<value = int64 {2}>()
  t = Constant<value = bool {1}>()
  b = Loop(n, t) <body = body (int64 i, bool c) => (bool co, float[4] r) {
    co = Identity(c)
    r = RandomUniformLike(x)
  }>
}
)");
  ASSERT_TRUE(m);
  ir::Tensor x(ir::DataType::kFloat, {4});
  std::map<std::string, ir::RuntimeValue> feeds{{"x", ir::RuntimeValue::of(x)}};
  auto run = [&](std::optional<uint64_t> seed) {
    eval::Interpreter interp(*m);
    if (seed) interp.set_random_seed(*seed);
    auto r = interp.run(feeds);
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    std::vector<float> a(r.value()[0].tensor.data<float>(), r.value()[0].tensor.data<float>() + 4);
    std::vector<float> b(r.value()[1].tensor.data<float>(), r.value()[1].tensor.data<float>() + 8);
    return std::make_pair(a, b);
  };
  auto s7 = run(7), again = run(7), s8 = run(8), system = run(std::nullopt);
  EXPECT_EQ(s7, again);
  EXPECT_NE(s7.first, s8.first);
  EXPECT_NE(s7.first, system.first);
  // The loop body's node draws anew at each iteration.
  EXPECT_NE(std::vector<float>(s7.second.begin(), s7.second.begin() + 4),
            std::vector<float>(s7.second.begin() + 4, s7.second.end()));
  // Two runs of one interpreter with the same stream draw alike too.
  eval::Interpreter interp(*m);
  interp.set_random_seed(3);
  auto r1 = interp.run(feeds), r2 = interp.run(feeds);
  ASSERT_TRUE(r1.is_ok() && r2.is_ok());
  EXPECT_EQ(r1.value()[1].tensor.data<float>()[5], r2.value()[1].tensor.data<float>()[5]);
}

// VITS's pattern: noise scaled by an input, around nodes the simplification removes (Add 0,
// Identity, Mul 1), so that the random nodes' inputs are renamed.
constexpr const char* kVits = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4] x, float[1] noise_scale) => (float[1,4] y) {
  zero = Constant<value = float {0}>()
  one = Constant<value = float {1}>()
  h = Add(x, zero)
  n1o = RandomNormalLike(h)
  e1 = Mul(n1o, noise_scale)
  z = Add(h, e1)
  zi = Identity(z)
  n2o = RandomNormalLike(zi)
  e2 = Mul(n2o, noise_scale)
  e2b = Mul(e2, one)
  y = Add(zi, e2b)
}
)";

TEST(RandomCheck, SimplifyWithNoiseScaledByAnInputPassesTheCheckAndWrites) {
  for (bool named : {true, false}) {
    auto m = parse(kVits);
    ASSERT_TRUE(m);
    if (named) name_nodes(*m, {{"n1o", "/dp/RandomNormalLike"}, {"n2o", "/flow/RandomNormalLike"}});
    test::TempDir dir;
    std::string in = dir.file("in.onnx"), out = dir.file("out.onnx");
    ASSERT_TRUE(onnx_io::save_model(*m, in).is_ok());
    Report rep;
    try {
      rep = simplify_file(in, out);  // the check in its default (auto) mode
    } catch (const Error& e) {
      FAIL() << e.what();
    }
    EXPECT_TRUE(std::filesystem::exists(out));
    EXPECT_LT(rep.after.nodes, rep.before.nodes);
    EXPECT_EQ(rep.after.op_histogram["RandomNormalLike"], 2);
    const Verification& v = rep.verification;
    EXPECT_TRUE(v.ran && v.ok) << v.skipped << v.why;
    ASSERT_EQ(v.outputs.size(), 1u);
    EXPECT_TRUE(v.outputs[0].comparable);
    EXPECT_EQ(v.random_alike.size(), 2u);
    EXPECT_TRUE(v.random_unmatched.empty());
    std::string text = rep.to_text();
    EXPECT_NE(text.find("random ops: 2 drawn alike in both models"), std::string::npos) << text;
    std::string json = rep.to_json();
    EXPECT_NE(json.find("\"drawn_alike\""), std::string::npos) << json;
  }
}

// The original has a random node feeding y1 and an output y2 independent of it.
constexpr const char* kLost = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y1, float[2,3] y2) {
  n = RandomNormalLike(x)
  y1 = Add(x, n)
  y2 = Relu(x)
}
)";

TEST(RandomCheck, OutputOfALostRandomNodeIsNotComparableOthersAreCompared) {
  auto orig = parse(kLost);
  ASSERT_TRUE(orig);
  name_nodes(*orig, {{"n", "noise"}});
  auto lost = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y1, float[2,3] y2) {
  y1 = Identity(x)
  y2 = Relu(x)
}
)");
  ASSERT_TRUE(lost);
  auto v = verifier(*orig);
  ASSERT_TRUE(v);
  auto rep = v->compare_with(*lost);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
  ASSERT_EQ(rep.value().outputs.size(), 2u);
  EXPECT_EQ(rep.value().outputs[0].not_comparable,
            "depends on random op RandomNormalLike 'noise', which has no counterpart in the result");
  EXPECT_EQ(rep.value().outputs[1].not_comparable, "");
  EXPECT_EQ(rep.value().random.unmatched, std::vector<std::string>{"RandomNormalLike 'noise' (only in the original)"});
  EXPECT_TRUE(rep.value().random.alike.empty());

  // y2 is still compared: a wrong y2 fails.
  auto wrong = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y1, float[2,3] y2) {
  y1 = Identity(x)
  y2 = Neg(x)
}
)");
  auto bad = v->compare_with(*wrong);
  ASSERT_TRUE(bad.is_ok());
  EXPECT_FALSE(bad.value().ok);
  EXPECT_NE(bad.value().why.find("output 'y2'"), std::string::npos) << bad.value().why;

  // A random node only in the result: the same, the other way round.
  auto rv = verifier(*lost);
  auto back = rv->compare_with(*orig);
  ASSERT_TRUE(back.is_ok());
  EXPECT_TRUE(back.value().ok) << back.value().why;
  EXPECT_EQ(back.value().outputs[0].not_comparable,
            "depends on random op RandomNormalLike 'noise', which has no counterpart in the original");

  // The public report: by name, in text and JSON; the check passes.
  Model a = public_model(*orig), b = public_model(*lost);
  Verification pv = verify(a, b);
  EXPECT_TRUE(pv.ok);
  ASSERT_EQ(pv.outputs.size(), 2u);
  EXPECT_FALSE(pv.outputs[0].comparable);
  EXPECT_TRUE(pv.outputs[0].ok);
  EXPECT_TRUE(pv.outputs[1].comparable);
  Report r;
  r.verification = pv;
  std::string text = r.to_text();
  EXPECT_NE(text.find("not comparable: y1: depends on random op RandomNormalLike 'noise'"), std::string::npos) << text;
  EXPECT_NE(text.find("random ops: 1 without a counterpart"), std::string::npos) << text;
  std::string json = r.to_json();
  EXPECT_NE(json.find("\"comparable\": false"), std::string::npos) << json;
}

TEST(RandomCheck, RandomNodeInsideABranchMakesTheIfOutputNotComparable) {
  auto orig = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[3] x) => (float[3] y, float[3] w) {
  y = If(k) <then_branch = t () => (float[3] a) { r = RandomUniformLike(x)  a = Add(x, r) },
             else_branch = e () => (float[3] b) { b = Neg(x) }>
  w = Abs(x)
}
)");
  auto result = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[3] x) => (float[3] y, float[3] w) {
  y = If(k) <then_branch = t () => (float[3] a) { a = Identity(x) },
             else_branch = e () => (float[3] b) { b = Neg(x) }>
  w = Abs(x)
}
)");
  ASSERT_TRUE(orig && result);
  auto v = verifier(*orig);
  ASSERT_TRUE(v);
  auto rep = v->compare_with(*result);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
  EXPECT_EQ(rep.value().outputs[0].not_comparable,
            "depends on random op RandomUniformLike (output 'r'), which has no counterpart in the result");
  EXPECT_EQ(rep.value().outputs[1].not_comparable, "");
}

TEST(RandomCheck, SeededNodesDrawTheirSeedAndAreCompared) {
  auto seeded = [](const char* seed) {
    return parse(std::string(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  n = RandomNormalLike<seed = )") +
                 seed + R"(>(x)
  y = Add(x, n)
}
)");
  };
  auto a = seeded("1.0"), b = seeded("1.0"), c = seeded("2.0");
  ASSERT_TRUE(a && b && c);
  // The stream does not change what a seeded node draws.
  ir::Tensor x(ir::DataType::kFloat, {2, 3});
  std::map<std::string, ir::RuntimeValue> feeds{{"x", ir::RuntimeValue::of(x)}};
  eval::Interpreter plain(*a), streamed(*a);
  streamed.set_random_seed(42);
  auto p = plain.run(feeds), s = streamed.run(feeds);
  ASSERT_TRUE(p.is_ok() && s.is_ok());
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(p.value()[0].tensor.data<float>()[i], s.value()[0].tensor.data<float>()[i]);

  auto v = verifier(*a);
  ASSERT_TRUE(v);
  auto same = v->compare_with(*b);
  ASSERT_TRUE(same.is_ok());
  EXPECT_TRUE(same.value().ok);
  EXPECT_EQ(same.value().outputs[0].not_comparable, "");
  EXPECT_EQ(same.value().random.seeded, 1);
  EXPECT_TRUE(same.value().random.alike.empty());
  EXPECT_EQ(same.value().random.summary(), "1 seeded by their own `seed` attribute");
  // Another seed draws other values: compared, and it differs (as before).
  auto other = v->compare_with(*c);
  ASSERT_TRUE(other.is_ok());
  EXPECT_FALSE(other.value().ok);
}

TEST(RandomCheck, RandomOpsAreNeverFolded) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y) {
  r = RandomNormal<shape = [3]>()
  c = Constant<value = float[3] {1, 2, 3}>()
  u = RandomUniformLike(c)
  s = Add(r, u)
  y = Add(x, s)
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyOptions o;
  o.verify_each_pass = true;  // the check after every pass that changed something
  auto r = passes::simplify(*m, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  int random = 0;
  m->graph->for_each_node([&](const ir::Node* n) { random += eval::is_random_op(*n); });
  EXPECT_EQ(random, 2);
  EXPECT_EQ(m->graph->initializers().size(), 1u);  // c only: nothing random became a constant
}

}  // namespace
}  // namespace onnxtrim
