// The default pipeline (passes/pipeline.cc) as a whole: the same model simplified twice gives the
// same bytes, at a fixed point, with the same outputs.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::expect_same_outputs;
using test::simplify_text;

TEST(Pipeline, DefaultPipelineIsDeterministic) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Identity(x)
  b = Relu(a)
  c = Relu(a)
  d = Add(b, c)
  y = Identity(d)
}
)";
  auto s1 = simplify_text(text);
  auto s2 = simplify_text(text);
  EXPECT_EQ(s1.printed, s2.printed);
  auto b1 = onnx_io::serialize_model(*s1.model);
  auto b2 = onnx_io::serialize_model(*s2.model);
  ASSERT_TRUE(b1.is_ok() && b2.is_ok());
  EXPECT_EQ(b1.value(), b2.value());
  EXPECT_TRUE(s1.result.converged);
  expect_same_outputs(s1);
}

}  // namespace
}  // namespace onnxtrim
