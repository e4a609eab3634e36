// User rewrite rules (passes/user_rules.h): pattern/replacement pairs of ONNX functions matched
// by the rewrite engine, and callbacks from C++ and C, run in the fixed point as "user:NAME".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "onnxtrim/onnxtrim.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/rule.h"
#include "passes/user_rules.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::parse;

// x * HardSigmoid(x) with HardSwish's constants is HardSwish(x); x * 1 is x.
const char* kUserRules = R"(
<domain: "rules", opset_import: ["" : 17]>
hard_swish (x) => (y) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
<domain: "rules", opset_import: ["" : 17]>
hard_swish_replacement (x) => (y) {
  y = HardSwish(x)
}
<domain: "rules", opset_import: ["" : 17]>
times_one (x) => (y) {
  one = Constant <value = float[1] {1}> ()
  y = Mul(x, one)
}
<domain: "rules", opset_import: ["" : 17]>
times_one_replacement (x) => (y) {
  y = Identity(x)
}
)";

std::vector<passes::UserPass> user_rules_from(const char* text) {
  auto m = onnx_io::parse_text_functions(text, "<rules>");
  EXPECT_TRUE(m.is_ok()) << (m.is_ok() ? "" : m.status().message());
  auto r = passes::pattern_rules(std::shared_ptr<const ir::Model>(std::move(m).value()), "<rules>");
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  return r.is_ok() ? r.value() : std::vector<passes::UserPass>{};
}

// The model simplified by the user rules alone (the built-in passes limited to dead-node removal,
// which would otherwise fold x * 1 first), with the verifier and the convergence check on.
test::Simplified with_user_rules(const std::string& text, const char* rules = kUserRules) {
  test::Simplified s;
  s.model = parse(text);
  if (!s.model) return s;
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.only = {"eliminate_dead_nodes"};
  o.verify_ir = true;
  o.fail_on_cap = true;
  o.user_passes = user_rules_from(rules);
  auto r = passes::simplify(*s.model, o);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (r) s.result = r.value();
  s.printed = ir::print_graph(*s.model->graph);
  return s;
}

int64_t user_rule_changes(const test::Simplified& s, const std::string& pass) {
  for (const auto& p : s.result.passes)
    if (p.name == pass) return p.changes;
  return -1;
}

std::string explain_rule(ir::Model& m, const std::string& node, const std::string& rule,
                         const char* rules = kUserRules) {
  passes::SimplifyOptions o;
  o.user_passes = user_rules_from(rules);
  for (const auto& [r, why] : passes::explain(m, node, o))
    if (r == rule) return why;
  return "(not listed)";
}

std::vector<float> run_floats(const ir::Model& m, const std::vector<float>& x) {
  Model pub = Model::parse(onnx_io::serialize_model(m).value().data(), onnx_io::serialize_model(m).value().size());
  Tensor in;
  in.dtype = 1;
  in.shape = {static_cast<int64_t>(x.size())};
  in.data = x.data();
  in.nbytes = x.size() * sizeof(float);
  auto out = run(pub, {{"x", in}});
  const Tensor& y = out.at("y");
  std::vector<float> r(y.nbytes / sizeof(float));
  std::memcpy(r.data(), y.data, y.nbytes);
  return r;
}

TEST(UserRules, PatternFusesWithExactValues) {
  auto s = with_user_rules(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[5] x) => (float[5] y) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(test::count_ops(*s.model->graph, "HardSwish"), 1u) << s.printed;
  EXPECT_GT(user_rule_changes(s, "user:hard_swish"), 0);
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");  // the output keeps its name
  std::vector<float> y = run_floats(*s.model, {-4, -1, 0, 1, 4});
  ASSERT_EQ(y.size(), 5u);
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], -1.0f / 3, 1e-6);
  EXPECT_FLOAT_EQ(y[2], 0.0f);
  EXPECT_NEAR(y[3], 2.0f / 3, 1e-6);
  EXPECT_FLOAT_EQ(y[4], 4.0f);
  test::expect_same_outputs(s);
}

TEST(UserRules, CommutativeOperandsMatchEitherWay) {
  auto s = with_user_rules(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(h, x)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  EXPECT_EQ(test::count_ops(*s.model->graph, "HardSwish"), 1u) << s.printed;
  test::expect_same_outputs(s);
}

TEST(UserRules, OtherAttributesDoNotMatch) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y) {
  h = HardSigmoid <alpha = 0.2, beta = 0.5> (x)
  y = Mul(x, h)
}
)";
  auto s = with_user_rules(text);
  ASSERT_TRUE(s.model);
  EXPECT_EQ(s.nodes(), 2u) << s.printed;
  EXPECT_EQ(user_rule_changes(s, "user:hard_swish"), 0);
  auto m = parse(text);
  EXPECT_NE(explain_rule(*m, "y", "user:hard_swish").find("attribute alpha differs"), std::string::npos)
      << explain_rule(*m, "y", "user:hard_swish");
}

TEST(UserRules, PatternConstantMatchesAnEqualInitializer) {
  auto s = with_user_rules(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y) <float[1] k = {1}> {
  y = Mul(k, x)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(test::count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  EXPECT_GT(user_rule_changes(s, "user:times_one"), 0);
  test::expect_same_outputs(s);
  // Another value, another type or another shape: no match, and --explain says which.
  for (const char* sig :
       {"g (float[3] x) => (float[3] y) <float[1] k = {2}>", "g (double[3] x) => (double[3] y) <double[1] k = {1}>",
        "g (float[3] x) => (float[1,3] y) <float[1,1] k = {1}>"}) {
    const char* init = sig;
    std::string text = std::string(R"(
<ir_version: 8, opset_import: ["" : 17]>
)") + sig + R"( {
  y = Mul(x, k)
}
)";
    auto t = with_user_rules(text);
    ASSERT_TRUE(t.model);
    EXPECT_EQ(test::count_ops(*t.model->graph, "Mul"), 1u) << init << "\n" << t.printed;
    auto m = parse(text);
    EXPECT_NE(explain_rule(*m, "y", "user:times_one").find("differs from the pattern's"), std::string::npos)
        << init << ": " << explain_rule(*m, "y", "user:times_one");
  }
}

TEST(UserRules, RefusedWhenAnInnerValueIsReadOutside) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y, float[4] z) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
  z = Neg(h)
}
)";
  auto s = with_user_rules(text);
  ASSERT_TRUE(s.model);
  EXPECT_EQ(test::count_ops(*s.model->graph, "HardSwish"), 0u) << s.printed;
  auto m = parse(text);
  EXPECT_NE(explain_rule(*m, "y", "user:hard_swish").find("'h' (inside the match) is also read by"), std::string::npos)
      << explain_rule(*m, "y", "user:hard_swish");
}

TEST(UserRules, RefusedWhenAnInnerValueIsAGraphOutput) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y, float[4] h) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
)";
  auto s = with_user_rules(text);
  ASSERT_TRUE(s.model);
  EXPECT_EQ(test::count_ops(*s.model->graph, "HardSwish"), 0u) << s.printed;
  auto m = parse(text);
  EXPECT_EQ(explain_rule(*m, "y", "user:hard_swish"), "'h' (inside the match) is a graph output");
}

// A pattern of two outputs: the second (an inner value) may be read outside, and its readers
// read the replacement's second output.
TEST(UserRules, SecondPatternOutputIsRewired) {
  const char* rules = R"(
<domain: "rules", opset_import: ["" : 17]>
hs2 (x) => (y, h) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
<domain: "rules", opset_import: ["" : 17]>
hs2_replacement (x) => (y, h) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = HardSwish(x)
}
)";
  auto s = with_user_rules(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y, float[4] z) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
  z = Neg(h)
}
)",
                           rules);
  ASSERT_TRUE(s.model);
  EXPECT_EQ(test::count_ops(*s.model->graph, "HardSwish"), 1u) << s.printed;
  EXPECT_EQ(test::count_ops(*s.model->graph, "Mul"), 0u) << s.printed;
  EXPECT_EQ(test::count_ops(*s.model->graph, "HardSigmoid"), 1u) << s.printed;
  EXPECT_EQ(s.nodes(), 3u) << s.printed;
  test::expect_same_outputs(s);
}

TEST(UserRules, MatchesInsideASubgraph) {
  auto s = with_user_rules(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool b, float[4] x) => (float[4] y) {
  y = If(b) <then_branch = t () => (float[4] o) {
               h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
               o = Mul(x, h)
             },
             else_branch = e () => (float[4] o2) { o2 = Neg(x) }>
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(test::count_ops(*s.model->graph, "If"), 1u) << s.printed;
  EXPECT_NE(s.printed.find("HardSwish"), std::string::npos) << s.printed;
  EXPECT_EQ(s.printed.find("HardSigmoid"), std::string::npos) << s.printed;
  test::expect_same_outputs(s);
}

TEST(UserRules, OtherOpsetIsRefused) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[4] x) => (float[4] y) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
)";
  auto m = parse(text);
  EXPECT_EQ(explain_rule(*m, "y", "user:hard_swish"), "the model imports opset 14, the rule is written for opset 17");
}

TEST(UserRules, BadPairsAreRefusedWhenLoaded) {
  auto load = [](const std::string& text) {
    auto m = onnx_io::parse_text_functions(text, "r.txt");
    EXPECT_TRUE(m.is_ok()) << (m.is_ok() ? "" : m.status().message());
    auto r = passes::pattern_rules(std::shared_ptr<const ir::Model>(std::move(m).value()), "r.txt");
    EXPECT_FALSE(r.is_ok());
    return r.is_ok() ? std::string() : r.status().message();
  };
  // No replacement.
  EXPECT_NE(
      load(R"(<domain: "r", opset_import: ["" : 17]> p (x) => (y) { y = Neg(x) })").find("no function 'p_replacement'"),
      std::string::npos);
  // Another number of inputs.
  EXPECT_NE(load(R"(<domain: "r", opset_import: ["" : 17]> p (x) => (y) { y = Neg(x) }
<domain: "r", opset_import: ["" : 17]> p_replacement (x, z) => (y) { y = Add(x, z) })")
                .find("the pattern takes 1 inputs"),
            std::string::npos);
  // A pattern node the match cannot reach from the first output.
  EXPECT_NE(load(R"(<domain: "r", opset_import: ["" : 17]> p (x) => (y, z) { y = Neg(x)  z = Abs(x) }
<domain: "r", opset_import: ["" : 17]> p_replacement (x) => (y, z) { y = Neg(x)  z = Abs(x) })")
                .find("does not lead to the first output"),
            std::string::npos);
  // A file that is not ONNX text.
  auto bad = onnx_io::parse_text_functions("p (x) => (y) { y = ", "r.txt");
  EXPECT_FALSE(bad.is_ok());
}

// ---- through the public API: --rewrite-rules FILE, C++ and C callbacks

const char* kHardSwishModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
)";

const char* kHardSwishResult = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y) {
  y = HardSwish(x)
}
)";

const PassStats* find_pass(const Report& r, const std::string& name) {
  for (const auto& p : r.passes)
    if (p.name == name) return &p;
  return nullptr;
}

TEST(UserRules, RewriteRulesOptionReadsAFileAndTheCheckRuns) {
  test::TempDir dir;
  std::ofstream(dir.file("rules.txt")) << kUserRules;
  Model m = Model::parse_text(kHardSwishModel);
  Options o;
  o.set("rewrite-rules", dir.file("rules.txt"));
  Report r = simplify(m, o);
  EXPECT_EQ(r.after.nodes, 1);
  EXPECT_EQ(r.after.op_histogram.count("HardSwish"), 1u);
  const PassStats* p = find_pass(r, "user:hard_swish");
  ASSERT_NE(p, nullptr);
  EXPECT_GT(p->changes, 0);
  EXPECT_TRUE(r.verification.ran);
  EXPECT_TRUE(r.verification.ok);
  // A missing file: exit 3 naming it; rules without a replacement: exit 2.
  Model m2 = Model::parse_text(kHardSwishModel);
  Options missing;
  missing.set("rewrite-rules", dir.file("none.txt"));
  try {
    simplify(m2, missing);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitIo);
    EXPECT_NE(std::string(e.what()).find("none.txt"), std::string::npos) << e.what();
  }
  std::ofstream(dir.file("half.txt")) << R"(<domain: "r", opset_import: ["" : 17]> p (x) => (y) { y = Neg(x) })";
  Options half;
  half.set("rewrite-rules", dir.file("half.txt"));
  try {
    simplify(m2, half);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_NE(std::string(e.what()).find("half.txt"), std::string::npos) << e.what();
  }
}

TEST(UserRules, CppCallbackRunsInTheFixedPoint) {
  Model m = Model::parse_text(kHardSwishModel);
  Options o;
  int calls = 0;
  o.rewriters.push_back({"hard_swish_cb", [&calls](Model& model) {
                           ++calls;
                           if (!model.stats().op_histogram.count("HardSigmoid")) return false;
                           model = Model::parse_text(kHardSwishResult);
                           return true;
                         }});
  Report r = simplify(m, o);
  EXPECT_EQ(r.after.nodes, 1);
  EXPECT_EQ(r.after.op_histogram.count("HardSwish"), 1u);
  EXPECT_EQ(m.output_names(), std::vector<std::string>{"y"});
  const PassStats* p = find_pass(r, "user:hard_swish_cb");
  ASSERT_NE(p, nullptr);
  EXPECT_GT(p->changes, 0);
  EXPECT_EQ(p->runs, calls);
  EXPECT_GE(calls, 2);  // once changing, once more finding nothing (the fixed point)
  EXPECT_TRUE(r.verification.ran);
  EXPECT_TRUE(r.verification.ok);
}

TEST(UserRules, CppCallbackErrorsNameTheRule) {
  {
    Model m = Model::parse_text(kHardSwishModel);
    Options o;
    o.rewriters.push_back({"thrower", [](Model&) -> bool { throw std::runtime_error("no luck"); }});
    try {
      simplify(m, o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage);
      EXPECT_NE(std::string(e.what()).find("rewrite rule 'thrower' failed: no luck"), std::string::npos) << e.what();
    }
  }
  {
    Model m = Model::parse_text(kHardSwishModel);
    Options o;
    o.rewriters.push_back({"renamer", [](Model& model) {
                             model = Model::parse_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] other) { other = Neg(x) }
)");
                             return true;
                           }});
    try {
      simplify(m, o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("rewrite rule 'renamer': the model it returned has other graph outputs"),
                std::string::npos)
          << e.what();
    }
  }
  {
    // A callback whose result computes something else: the check catches it (exit 1).
    Model m = Model::parse_text(kHardSwishModel);
    Options o;
    o.rewriters.push_back({"wrong", [](Model& model) {
                             if (model.stats().op_histogram.count("Neg")) return false;
                             model = Model::parse_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y) { y = Neg(x) }
)");
                             return true;
                           }});
    EXPECT_THROW(simplify(m, o), VerificationFailed);
  }
}

struct CRuleState {
  int calls = 0;
  std::string result;  // serialized model handed back on the first call
  int fail_with = 0;
};

int c_rule(void* user_data, const void* model, size_t model_size, void** out, size_t* out_size, char** error) {
  auto* st = static_cast<CRuleState*>(user_data);
  ++st->calls;
  EXPECT_GT(model_size, 0u);
  EXPECT_NE(model, nullptr);
  if (st->fail_with) {
    *error = static_cast<char*>(std::malloc(8));
    std::memcpy(*error, "broken", 7);
    return st->fail_with;
  }
  if (st->calls > 1) return 0;
  *out = std::malloc(st->result.size());
  std::memcpy(*out, st->result.data(), st->result.size());
  *out_size = st->result.size();
  return 1;
}

TEST(UserRules, CCallbackAndCRules) {
  std::string in = Model::parse_text(kHardSwishModel).serialize();
  CRuleState st;
  st.result = Model::parse_text(kHardSwishResult).serialize();
  onnxtrim_options* o = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_add_rewriter(o, "c_rule", c_rule, &st), 0);
  EXPECT_EQ(onnxtrim_options_add_rewriter(o, "", c_rule, &st), 2);
  void* out = nullptr;
  size_t out_size = 0;
  char *report = nullptr, *error = nullptr;
  int rc = onnxtrim_simplify_buffer(in.data(), in.size(), o, &out, &out_size, &report, &error);
  ASSERT_EQ(rc, 0) << (error ? error : "");
  EXPECT_GE(st.calls, 2);
  Model result = Model::parse(out, out_size);
  EXPECT_EQ(result.stats().op_histogram.count("HardSwish"), 1u);
  EXPECT_NE(std::string(report).find("user:c_rule"), std::string::npos);
  onnxtrim_free(out);
  onnxtrim_free(report);
  onnxtrim_free(error);
  onnxtrim_options_free(o);

  // An error return fails the run: exit 2, the rule and its message named.
  CRuleState failing;
  failing.fail_with = -1;
  onnxtrim_options* f = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_add_rewriter(f, "c_fail", c_rule, &failing), 0);
  out = nullptr;
  rc = onnxtrim_simplify_buffer(in.data(), in.size(), f, &out, &out_size, &report, &error);
  EXPECT_EQ(rc, 2);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("rewrite rule 'c_fail' failed: returned -1: broken"), std::string::npos) << error;
  onnxtrim_free(out);
  onnxtrim_free(report);
  onnxtrim_free(error);
  onnxtrim_options_free(f);

  // The same rule as a function pair, through the options table.
  test::TempDir dir;
  std::ofstream(dir.file("rules.txt")) << kUserRules;
  onnxtrim_options* t = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_set(t, "rewrite-rules", dir.file("rules.txt").c_str()), 0);
  rc = onnxtrim_simplify_buffer(in.data(), in.size(), t, &out, &out_size, &report, &error);
  ASSERT_EQ(rc, 0) << (error ? error : "");
  EXPECT_EQ(Model::parse(out, out_size).stats().op_histogram.count("HardSwish"), 1u);
  EXPECT_NE(std::string(report).find("user:hard_swish"), std::string::npos);
  onnxtrim_free(out);
  onnxtrim_free(report);
  onnxtrim_free(error);
  onnxtrim_options_free(t);
}

// The same rule as tests/python/test_user_rules.py's Python one, as a function pair from C, on a
// fixture: bert_tiny's two erf Gelus become com.microsoft.Gelu (the evaluator has none: the check
// is skipped, saying so; the Python test compares the outputs in ONNX Runtime).
TEST(UserRules, CFunctionPairOnAFixture) {
  test::TempDir dir;
  const std::string src = std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/bert_tiny.onnx";
  const std::string rules = std::string(ONNXTRIM_SOURCE_DIR) + "/examples/rewrite_rules/erf_gelu.txt";
  const std::string out = dir.file("bert_gelu.onnx");
  onnxtrim_options* o = onnxtrim_options_new();
  ASSERT_EQ(onnxtrim_options_set(o, "rewrite-rules", rules.c_str()), 0);
  char *report = nullptr, *error = nullptr;
  int rc = onnxtrim_simplify_file(src.c_str(), out.c_str(), o, &report, &error);
  ASSERT_EQ(rc, 0) << (error ? error : "");
  EXPECT_NE(std::string(report).find("user:erf_gelu"), std::string::npos);
  EXPECT_NE(std::string(report).find("the result of the user rewrite rules: "), std::string::npos) << report;
  ModelStats st = Model::load(out).stats();
  EXPECT_EQ(st.op_histogram["com.microsoft.Gelu"], 2);
  EXPECT_EQ(st.op_histogram.count("Erf"), 0u);
  onnxtrim_free(report);
  onnxtrim_free(error);
  onnxtrim_options_free(o);
}

}  // namespace
}  // namespace onnxtrim
