// fuse_pad_conv: a zero Pad before a Conv or AveragePool joins its pads (attribute form before
// opset 11, axes input from 18); MaxPool only after a Relu; other modes and values stay.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "fusion_test_models.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::expect_same_outputs_loop;
using test::find_op;
using test::run;

const char* kPadHead = R"(<ir_version: 8, opset_import: ["" : OPSET]>
g (float[1,2,5,5] x) => (float[OUT] y)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4},
 int64[8] p = {0, 0, 1, 2, 0, 0, 2, 1}, int64[8] pc = {0, 1, 1, 0, 0, 0, 1, 0}, int64[4] p2 = {1, 1, 1, 1}, int64[2] ax = {-2, -1}>
)";

std::string pad_model(const std::string& body, const std::string& out, int opset = 17) {
  std::string head = kPadHead;
  head.replace(head.find("OPSET"), 5, std::to_string(opset));
  head.replace(head.find("OUT"), 3, out);
  return head + "{\n" + body + "\n}\n";
}

TEST(FusePadConv, ZeroPadJoinsConvPads) {
  auto s =
      run(pad_model("q = Pad(x, p)\n c = Conv <pads = [1, 0, 0, 1]> (q, w)\n y = Relu(c)", "1,3,8,7"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  EXPECT_EQ(find_op(*s.model->graph, "Conv")->attr_ints("pads"), (std::vector<int64_t>{2, 2, 2, 2})) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, AttributeFormBeforeOpset11) {
  auto s = run(pad_model("q = Pad <pads = [0, 0, 1, 2, 0, 0, 2, 1], value = 0.0> (x)\n y = Conv(q, w)", "1,3,6,6", 10),
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, AxesInputFromOpset18) {
  auto s = run(
      pad_model("zero = Constant <value = float {0}> ()\n q = Pad(x, p2, zero, ax)\n y = Conv(q, w)", "1,3,5,5", 18),
      "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, AveragePoolCountingPadsBecomesCountIncludePad) {
  auto s = run(pad_model("q = Pad(x, p)\n y = AveragePool <kernel_shape = [3, 3]> (q)", "1,2,6,6"), "fuse_pad_conv");
  const ir::Node* pool = find_op(*s.model->graph, "AveragePool");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  EXPECT_EQ(pool->attr_int("count_include_pad", 0), 1);
  expect_same_outputs(s);
}

TEST(FusePadConv, AveragePoolWithItsOwnPadsNotCountedStays) {
  auto s = run(pad_model("q = Pad(x, p)\n y = AveragePool <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (q)", "1,2,8,8"),
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 1u) << s.printed;
}

TEST(FusePadConv, AveragePoolCountingItsPadsFuses) {
  auto s =
      run(pad_model(
              "q = Pad(x, p)\n y = AveragePool <kernel_shape = [3, 3], pads = [0, 0, 0, 1], count_include_pad = 1> (q)",
              "1,2,6,7"),
          "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
}

TEST(FusePadConv, MaxPoolOnlyAfterRelu) {
  auto s = run(pad_model("r = Relu(x)\n q = Pad(r, p)\n y = MaxPool <kernel_shape = [3, 3]> (q)", "1,2,6,6"),
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 0u) << s.printed;
  expect_same_outputs(s);
  auto t = run(pad_model("q = Pad(x, p)\n y = MaxPool <kernel_shape = [3, 3]> (q)", "1,2,6,6"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*t.model->graph, "Pad"), 1u) << t.printed;
}

TEST(FusePadConv, NonZeroValueChannelPadsAndReflectStay) {
  auto a = run(pad_model("one = Constant <value = float {1}> ()\n q = Pad(x, p, one)\n y = Conv(q, w)", "1,3,6,6"),
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*a.model->graph, "Pad"), 1u) << a.printed;
  auto b = run(pad_model("q = Pad <mode = \"reflect\"> (x, p)\n y = Conv(q, w)", "1,3,6,6"), "fuse_pad_conv");
  EXPECT_EQ(count_ops(*b.model->graph, "Pad"), 1u) << b.printed;
  auto c = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,1,5,5] x) => (float[1,3,6,4] y)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4}, int64[8] pc = {0, 1, 1, 0, 0, 0, 1, 0}>
{ q = Pad(x, pc)
  y = Conv(q, w) }
)",
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*c.model->graph, "Pad"), 1u) << c.printed;
}

TEST(FusePadConv, PadAsGraphOutputStays) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,5,5] x) => (float[1,3,6,6] y, float[1,2,8,8] q)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4}, int64[8] p = {0, 0, 1, 2, 0, 0, 2, 1}>
{ q = Pad(x, p)
  y = Conv(q, w) }
)",
               "fuse_pad_conv");
  EXPECT_EQ(count_ops(*s.model->graph, "Pad"), 1u) << s.printed;
  EXPECT_EQ(s.model->graph->outputs()[1]->name(), "q");
}

TEST(FusePadConv, ConvAsGraphOutputInsideIfBranch) {
  auto s = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool k, float[1,2,5,5] x) => (float[1,3,6,6] y)
<float[3,2,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4}, int64[8] p = {0, 0, 1, 2, 0, 0, 2, 1}>
{
  y = If(k) <
    then_branch = t1 () => (float[1,3,6,6] o1) { q = Pad(x, p)  o1 = Conv(q, w) },
    else_branch = t2 () => (float[1,3,6,6] o2) { q2 = Pad(x, p)  c2 = Conv(q2, w)  o2 = Neg(c2) }
  >
}
)",
               "fuse_pad_conv");
  const ir::Node* iff = s.model->graph->first_node();
  EXPECT_EQ(count_ops(*iff->subgraphs()[0], "Pad"), 0u) << s.printed;
  EXPECT_EQ(count_ops(*iff->subgraphs()[1], "Pad"), 0u) << s.printed;
  EXPECT_EQ(iff->subgraphs()[0]->outputs()[0]->name(), "o1");
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
