// An explicit input shape that overrides a dim the model fixes (checked against the original
// run at the same shape); a change of rank is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "onnxtrim/onnxtrim.hpp"

namespace {

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
  w = Constant<value = float[2,3,3,3] {)" + w + R"(}>()
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

}  // namespace
