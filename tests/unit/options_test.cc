// The option table's NAME:VALUE / NAME=VALUE pairs and name lists (src/api/options.cc): where a
// pair is cut, double-quoted names kept whole, and an explicit input shape that overrides a
// dim the model fixes (checked against the original run at the same shape).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "onnxtrim/onnxtrim.hpp"

namespace {

using Shapes = std::map<std::string, std::vector<int64_t>>;
using Names = std::vector<std::string>;

// The exit code and message of setting `name` to `value` (0 when accepted).
int set_error(const std::string& name, const std::string& value, std::string* msg = nullptr) {
  onnxtrim::Options o;
  try {
    o.set(name, value);
  } catch (const onnxtrim::Error& e) {
    if (msg) *msg = e.what();
    return e.exit_code();
  }
  return 0;
}

TEST(OptionPairs, ModelCheckInputsCutAtTheLastColon) {
  // OnnxSlim's NAME:FILE.npy with a TensorFlow name: input_1:0's file, not input_1's.
  onnxtrim::Options o;
  o.set("model-check-inputs", "input_1:0:x.npy");
  EXPECT_EQ(o.input_values, Names{"input_1:0=x.npy"});
  o.set("model-check-inputs", "input_2:0:1,3,8,8 plain:2,5");
  EXPECT_EQ(o.check_input_shapes, (Shapes{{"input_2:0", {1, 3, 8, 8}}, {"plain", {2, 5}}}));
  EXPECT_EQ(o.verify, onnxtrim::Options::Verify::kOn);
  // A file path with a ':' is given quoted; so is a name with a space.
  o.set("model-check-inputs", "x:\"c:/data/x.npy\" \"in a\":\"my data/a.npy\"");
  EXPECT_EQ(o.input_values, (Names{"input_1:0=x.npy", "x=c:/data/x.npy", "in a=my data/a.npy"}));
  std::string msg;
  EXPECT_EQ(set_error("model-check-inputs", "x.npy", &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("needs NAME:D,D or NAME:FILE.npy"), std::string::npos) << msg;
}

TEST(OptionPairs, ShapesCutAtTheLastColon) {
  onnxtrim::Options o;
  o.set("input-shape", "input_1:0:1,3,224,224");
  o.set("overwrite-input-shape", "a:b:2,3 c:4");
  o.set("input-shapes", "d:0:5");
  o.set("test-input-shape", "e:0:6,7");
  EXPECT_EQ(o.input_shapes, (Shapes{{"input_1:0", {1, 3, 224, 224}}, {"a:b", {2, 3}}, {"c", {4}}, {"d:0", {5}}}));
  EXPECT_EQ(o.check_input_shapes, (Shapes{{"e:0", {6, 7}}}));
  o.set("overwrite-input-shape", "1,3");  // onnxsim's unnamed shape (the only input)
  EXPECT_EQ(o.input_shapes.at(""), (std::vector<int64_t>{1, 3}));
}

TEST(OptionPairs, QuotedNamesStayWhole) {
  onnxtrim::Options o;
  // spaces and commas separate names, except inside double quotes
  o.set("outputs", "\"mid x\",\"a,b\" c");
  EXPECT_EQ(o.cut_outputs, (Names{"mid x", "a,b", "c"}));
  o.set("inputs", "\"in a\"");
  o.set("add-outputs", "\"v 1\",v2");
  EXPECT_EQ(o.cut_inputs, Names{"in a"});
  EXPECT_EQ(o.add_outputs, (Names{"v 1", "v2"}));
  // a shape's name with a space and a comma (onnxsim's flag splits items at spaces)
  o.set("overwrite-input-shape", "\"in a,b\":2,3 \"x\":4");
  EXPECT_EQ(o.input_shapes, (Shapes{{"in a,b", {2, 3}}, {"x", {4}}}));
  o.set("input-shape", "\"q:1\":5");  // a quoted ':' is the name's
  EXPECT_EQ(o.input_shapes.at("q:1"), std::vector<int64_t>{5});
  // \" and \\ inside the quotes; a backslash elsewhere is kept
  o.set("outputs", "\"say \\\"hi\\\" \\\\o/\" back\\slash");
  EXPECT_EQ(o.cut_outputs, (Names{"mid x", "a,b", "c", "say \"hi\" \\o/", "back\\slash"}));
  std::string msg;
  EXPECT_EQ(set_error("outputs", "\"open", &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("unterminated quote"), std::string::npos) << msg;
  EXPECT_EQ(set_error("outputs", "\"\""), onnxtrim::kExitUsage);  // an empty name
}

TEST(OptionPairs, RetypingRefusedUnlessQuoted) {
  std::string msg;
  EXPECT_EQ(set_error("outputs", "logits:fp16", &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("changing the type"), std::string::npos) << msg;
  onnxtrim::Options o;
  o.set("outputs", "\"logits:fp16\",input_1:0");  // a name that only looks like one; a TF name
  EXPECT_EQ(o.cut_outputs, (Names{"logits:fp16", "input_1:0"}));
}

TEST(OptionPairs, DimCutAtTheLastEqualsInputAndRenameAtTheFirst) {
  onnxtrim::Options o;
  o.set("dim", "a=b=3");  // the value is an integer: the last '='
  o.set("dim", "\"n m\"=4");
  EXPECT_EQ(o.dims, (std::map<std::string, int64_t>{{"a=b", 3}, {"n m", 4}}));
  // --input NAME=FILE: the first '=' (a path may hold one), as the check reads it
  o.set("input", "x=runs/k=1/x.npy");
  o.set("input", "input_1:0=0.5");
  o.set("input", "\"in a\"=\"my x.npy\"");
  EXPECT_EQ(o.input_values, (Names{"x=runs/k=1/x.npy", "input_1:0=0.5", "in a=my x.npy"}));
  std::string msg;
  EXPECT_EQ(set_error("input", "\"a=b\"=1", &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("cannot be pinned"), std::string::npos) << msg;
  o.set("rename", "\"a,b\"=c,d=\"e f\"");
  ASSERT_EQ(o.rename.size(), 2u);
  EXPECT_EQ(o.rename[0], (std::pair<std::string, std::string>{"a,b", "c"}));
  EXPECT_EQ(o.rename[1], (std::pair<std::string, std::string>{"d", "e f"}));
}

// x[1,3,224,224] -> Conv(2 filters 3x3, pads 1) -> mid (value_info: [1,2,224,224]) -> Relu -> y,
// declared [1,2,224,224].
std::string conv_model() {
  std::string w;
  for (int i = 0; i < 2 * 3 * 3 * 3; ++i) w += (i ? ", " : "") + std::to_string((i % 7 - 3) * 0.125);
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,3,224,224] x) => (float[1,2,224,224] y)
  <float[1,2,224,224] mid>
{
  w = Constant<value = float[2,3,3,3] {)" +
         w + R"(}>()
  mid = Conv<pads = [1, 1, 1, 1]>(x, w)
  y = Relu(mid)
}
)";
}

std::string declared(const onnxtrim::Model& m, const char* which) {
  std::string j = onnxtrim::inspect_json(m);
  size_t at = j.find(std::string("\"") + which + "\"");
  size_t type = j.find("\"type\"", at);
  size_t open = j.find('"', j.find(':', type) + 1);
  return j.substr(open + 1, j.find('"', open + 1) - open - 1);
}

TEST(InputShape, OverridesAFixedDimAndChecksAtThatShape) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(conv_model());
  onnxtrim::Options o;
  o.set("input-shape", "x:1,3,112,112");
  o.set("verify");
  onnxtrim::Report r = onnxtrim::simplify(m, o);
  // The original ran at 112 too: outputs of another shape would not compare equal.
  EXPECT_TRUE(r.verification.ran);
  EXPECT_TRUE(r.verification.ok) << r.verification.why;
  EXPECT_EQ(declared(m, "inputs"), "float[1,3,112,112]");
  EXPECT_EQ(declared(m, "outputs"), "float[1,2,112,112]");  // proved again, not the stale 224
  EXPECT_EQ(m.to_text().find("224"), std::string::npos) << m.to_text();
  // Runs at 112.
  auto owner = std::make_shared<std::vector<float>>(3 * 112 * 112, 0.5f);
  onnxtrim::Tensor t;
  t.dtype = 1;
  t.shape = {1, 3, 112, 112};
  t.data = owner->data();
  t.nbytes = owner->size() * sizeof(float);
  t.owner = owner;
  auto out = onnxtrim::run(m, {{"x", t}});
  EXPECT_EQ(out.at("y").shape, (std::vector<int64_t>{1, 2, 112, 112}));
}

TEST(InputShape, OnnxsimsFlagsOverrideAFixedDimToo) {
  for (const char* opt : {"overwrite-input-shape", "input-shapes"}) {
    onnxtrim::Model m = onnxtrim::Model::parse_text(conv_model());
    onnxtrim::Options o;
    o.set(opt, "x:2,3,64,32");
    onnxtrim::Report r = onnxtrim::simplify(m, o);
    EXPECT_TRUE(r.verification.ran && r.verification.ok) << opt << ": " << r.verification.skipped;
    EXPECT_EQ(declared(m, "inputs"), "float[2,3,64,32]") << opt;
    EXPECT_EQ(declared(m, "outputs"), "float[2,2,64,32]") << opt;
  }
}

TEST(InputShape, AChangeOfRankIsRefused) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(conv_model());
  onnxtrim::Options o;
  o.set("input-shape", "x:1,3,112");
  try {
    onnxtrim::simplify(m, o);
    FAIL() << "a rank change was accepted";
  } catch (const onnxtrim::Error& e) {
    EXPECT_EQ(e.exit_code(), onnxtrim::kExitUsage);
    std::string msg = e.what();
    EXPECT_NE(msg.find("rank 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 3"), std::string::npos) << msg;
  }
}

bool has(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// OnnxSlim's --skip-optimizations NAME ...: its five optimizations as onnxtrim's passes.
TEST(PeerFlags, SkipOptimizationsMapsOnnxSlimsNames) {
  onnxtrim::Options o;
  o.set("skip-optimizations", "graph_fusion");
  for (const char* p :
       {"fuse_conv_bn", "fuse_pad_conv", "fuse_matmul_add", "fuse_consecutive_ops", "fuse_consecutive_slices"})
    EXPECT_TRUE(has(o.skip, p)) << p;
  EXPECT_TRUE(o.constant_folding);
  o.set("skip-optimizations", "constant_folding dead_node_elimination,subexpression_elimination");
  o.set("skip_optimizations", "weight_tying");  // Python's spelling
  EXPECT_FALSE(o.constant_folding);
  for (const char* p : {"eliminate_dead_nodes", "eliminate_common_subexpressions", "eliminate_duplicate_constants"})
    EXPECT_TRUE(has(o.skip, p)) << p;
  std::string msg;
  EXPECT_EQ(set_error("skip-optimizations", "fusion", &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("unknown optimization 'fusion'"), std::string::npos) << msg;
}

TEST(PeerFlags, VerboseDumpToDiskInputFill) {
  onnxtrim::Options o;
  o.set("verbose");
  o.set("dump-to-disk");
  o.set("input-fill", "arange");
  EXPECT_TRUE(o.verbose);
  EXPECT_TRUE(o.dump_to_disk);
  EXPECT_EQ(o.input_fill, "arange");
  std::string msg;
  EXPECT_EQ(set_error("input-fill", "normal", &msg), onnxtrim::kExitUsage);
  EXPECT_NE(msg.find("needs random, ones, zeros or arange"), std::string::npos) << msg;
}

// x -> Relu -> y1; x -> Exp -> Sigmoid -> (+ c) -> "y 2".
std::string two_outputs() {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y1, float[2,3] y2)
{
  c = Constant<value = float[3] {1, 2, 3}>()
  y1 = Relu(x)
  e = Exp(x)
  s = Sigmoid(e)
  y2 = Add(s, c)
}
)";
}

// onnxsim's --unused-output / unused_output: the outputs named go, with what only they need.
TEST(PeerFlags, UnusedOutputRemovesTheOutputAndWhatOnlyItNeeds) {
  onnxtrim::Model m = onnxtrim::Model::parse_text(two_outputs());
  onnxtrim::Options o;
  o.set("unused-output", "y2");
  EXPECT_EQ(o.unused_outputs, Names{"y2"});
  onnxtrim::Report r = onnxtrim::simplify(m, o);
  EXPECT_TRUE(r.verification.ran && r.verification.ok) << r.verification.skipped << r.verification.why;
  std::string text = m.to_text();
  EXPECT_EQ(text.find("Exp"), std::string::npos) << text;
  EXPECT_EQ(text.find("Sigmoid"), std::string::npos) << text;
  EXPECT_EQ(text.find("y2"), std::string::npos) << text;
  EXPECT_NE(text.find("Relu"), std::string::npos) << text;

  for (const char* bad : {"nope", "y1 y2"}) {
    onnxtrim::Model m2 = onnxtrim::Model::parse_text(two_outputs());
    onnxtrim::Options o2;
    o2.set("unused-output", bad);
    try {
      onnxtrim::simplify(m2, o2);
      ADD_FAILURE() << bad << ": accepted";
    } catch (const onnxtrim::Error& e) {
      EXPECT_EQ(e.exit_code(), onnxtrim::kExitUsage) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string(bad) == "nope" ? "'nope' is not an output" : "one must stay"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
