// simplify_shape_chains: an attention Reshape stays dynamic; a merged dim becomes -1.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::expect_same_outputs;
using test::ints_of;
using test::simplify_text;

TEST(SimplifyShapeChains, AttentionReshapeStaysDynamic) {
  // x: [batch, seq, 768] -> [batch, seq, 12, 64] spelled the way exporters do.
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,seq,768] x) => (float[batch,seq,12,64] y) {
  s = Shape(x)
  i0 = Constant <value = int64 {0}> ()
  i1 = Constant <value = int64 {1}> ()
  b = Gather <axis = 0> (s, i0)
  q = Gather <axis = 0> (s, i1)
  axes = Constant <value = int64[1] {0}> ()
  b1 = Unsqueeze(b, axes)
  q1 = Unsqueeze(q, axes)
  heads = Constant <value = int64[2] {12, 64}> ()
  shape = Concat <axis = 0> (b1, q1, heads)
  y = Reshape(x, shape)
}
)";
  auto s = simplify_text(text);
  EXPECT_EQ(s.nodes(), 1u) << s.printed;
  ir::Node* reshape = s.model->graph->first_node();
  ASSERT_TRUE(reshape != nullptr);
  ASSERT_EQ(reshape->op_type, "Reshape");
  ASSERT_TRUE(reshape->input(1)->is_initializer());
  EXPECT_EQ(ints_of(reshape->input(1)), (std::vector<int64_t>{0, 0, 12, 64}));
  // Still dynamic: the same model runs for two sequence lengths.
  expect_same_outputs(s, 2, {{"batch", 2}, {"seq", 5}});
  expect_same_outputs(s, 2, {{"batch", 1}, {"seq", 9}});
}

TEST(SimplifyShapeChains, MergedDimBecomesMinusOne) {
  // [batch, seq, 12, 64] -> [batch, seq, 768] with the last dim computed as 12*64.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch,seq,12,64] x) => (float[batch,seq,768] y) {
  s = Shape(x)
  st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {2}> ()
  bs = Slice(s, st, en)
  last = Constant <value = int64[1] {768}> ()
  shape = Concat <axis = 0> (bs, last)
  y = Reshape(x, shape)
}
)");
  ASSERT_EQ(s.nodes(), 1u) << s.printed;
  ASSERT_TRUE(s.model->graph->first_node()->input(1)->is_initializer());
  EXPECT_EQ(ints_of(s.model->graph->first_node()->input(1)), (std::vector<int64_t>{0, 0, 768}));
  expect_same_outputs(s, 2, {{"batch", 2}, {"seq", 3}});
}

}  // namespace
}  // namespace onnxtrim
