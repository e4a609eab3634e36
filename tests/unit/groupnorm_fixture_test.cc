// groupnorm_unet_tiny (tests/models/, made by make_fixtures.py: two UNet ResBlocks and a final
// GroupNorm + SiLU, as torch 1.13 exports them) through the public API: the default target keeps
// the InstanceNormalization and Sigmoid forms ONNX Runtime runs fastest; --target tensorrt and
// openvino with --opset 24 write every GroupNorm as GroupNormalization-21 and every SiLU as
// Swish-24, with the check on and the outputs equal at two batch sizes; a model that already
// holds GroupNormalization/Swish keeps them under the default target.
#include <gtest/gtest.h>

#include "api/internal.h"
#include "eval/verify.h"
#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim {
namespace {

int64_t ops_of(const Report& r, const std::string& op) {
  auto it = r.after.op_histogram.find(op);
  return it == r.after.op_histogram.end() ? 0 : it->second;
}

void expect_same(const Model& original, const Model& m) {
  for (int64_t batch : {1, 3}) {
    eval::VerifyOptions vo;
    vo.samples = 1;
    vo.inputs.dims = {{"batch", batch}};
    auto v = eval::Verifier::create(api::ir_model(original), vo);
    ASSERT_TRUE(v.is_ok()) << v.status().message();
    auto rep = v.value()->compare_with(api::ir_model(m));
    ASSERT_TRUE(rep.is_ok()) << rep.status().message();
    EXPECT_TRUE(rep.value().ok) << batch << ": " << rep.value().why;
  }
}

const std::string kFixture = std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/groupnorm_unet_tiny.onnx";

TEST(GroupNormFixture, DefaultTargetKeepsTheDecompositions) {
  Model original = Model::load(kFixture);
  for (int64_t opset : {0, 24}) {
    SCOPED_TRACE(opset);
    Model m = original.clone();
    Options o;
    o.opset = opset;
    Report r = simplify(m, o);
    EXPECT_TRUE(r.verification.ran) << r.verification.skipped;
    EXPECT_EQ(ops_of(r, "GroupNormalization"), 0);
    EXPECT_EQ(ops_of(r, "Swish"), 0);
    EXPECT_EQ(ops_of(r, "InstanceNormalization"), 5) << r.to_text();
    EXPECT_EQ(ops_of(r, "Sigmoid"), 5);
  }
}

TEST(GroupNormFixture, TensorRTAndOpenVINOFuseEveryGroupNormAndSiLU) {
  Model original = Model::load(kFixture);
  for (const char* target : {"tensorrt", "openvino"}) {
    SCOPED_TRACE(target);
    Model m = original.clone();
    Options o;
    o.opset = 24;
    o.target = target;
    Report r = simplify(m, o);  // the check runs: it throws on a difference
    EXPECT_TRUE(r.verification.ran) << r.verification.skipped;
    EXPECT_EQ(ops_of(r, "GroupNormalization"), 5) << r.to_text();
    EXPECT_EQ(ops_of(r, "Swish"), 5);
    EXPECT_EQ(ops_of(r, "InstanceNormalization"), 0);
    EXPECT_EQ(ops_of(r, "Sigmoid"), 0);
    EXPECT_EQ(ops_of(r, "Reshape"), 0);
    expect_same(original, m);
    // Simplified again under the default target, the fused ops stay: nothing expands them.
    Model again = m.clone();
    Report r2 = simplify(again, Options{});
    EXPECT_EQ(ops_of(r2, "GroupNormalization"), 5);
    EXPECT_EQ(ops_of(r2, "Swish"), 5);
  }
  // At opset 21 there is no Swish yet: GroupNormalization only.
  Model m = original.clone();
  Options o;
  o.opset = 21;
  o.target = "tensorrt";
  Report r = simplify(m, o);
  EXPECT_EQ(ops_of(r, "GroupNormalization"), 5);
  EXPECT_EQ(ops_of(r, "Swish"), 0);
  EXPECT_EQ(ops_of(r, "Sigmoid"), 5);
}

}  // namespace
}  // namespace onnxtrim
