// fuse_consecutive_ops: two ops of one kind in a row are one (the op files' folds): the node count
// and the outputs; cases where it must not fire; graph-output and subgraph cases. Unsqueeze of
// Unsqueeze (issue 28): one Unsqueeze of the merged axes, as an input from opset 13 and an
// attribute before; negative axes; refusals (a shared inner output, axes that are not constant),
// a graph-output intermediate and a case inside an If branch.
#include <gtest/gtest.h>

#include "eval/interpreter.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_folded;
using test::expect_same_outputs;
using test::run_fold_pass;

const std::vector<std::string> kConsecutivePasses = {"infer_shapes", "fuse_consecutive_ops", "eliminate_dead_nodes",
                                                     "eliminate_unused_initializers"};

const ir::Node* only_unsqueeze(const ir::Graph& g) {
  const ir::Node* found = nullptr;
  g.for_each_node([&](const ir::Node* n) {
    if (n->op_type == "Unsqueeze") found = n;
  });
  return found;
}

std::vector<int64_t> axes_of(const ir::Node& n, int64_t opset) {
  if (opset < 13) return n.attr_ints("axes");
  auto a = ops::FoldContext::constant_ints(n.input(1));
  return a ? *a : std::vector<int64_t>{};
}

std::string chain(int64_t opset, const std::string& a1, const std::string& a2, const std::string& out_shape,
                  const std::string& tail = "y = Relu(u2)", const std::string& outs = "") {
  std::string ax1 = opset >= 13 ? "u1 = Unsqueeze(x, a1)" : "u1 = Unsqueeze <axes = [" + a1 + "]> (x)";
  std::string ax2 = opset >= 13 ? "u2 = Unsqueeze(u1, a2)" : "u2 = Unsqueeze <axes = [" + a2 + "]> (u1)";
  std::string consts;
  if (opset >= 13) {
    auto count = [](const std::string& s) { return std::to_string(std::count(s.begin(), s.end(), ',') + 1); };
    consts = "  a1 = Constant <value = int64[" + count(a1) + "] {" + a1 + "}> ()\n  a2 = Constant <value = int64[" +
             count(a2) + "] {" + a2 + "}> ()\n";
  }
  return R"(<ir_version: 8, opset_import: ["" : )" + std::to_string(opset) + R"(]>
g (float[2,3] x) => (float[)" +
         out_shape + "] y" + outs + R"() {
)" + consts +
         "  " + ax1 + "\n  " + ax2 + "\n  " + tail + "\n}\n";
}

TEST(FuseConsecutiveOps, TransposeTransposeCompose) {
  auto s = run_fold_pass("fuse_consecutive_ops",
                         "a = Transpose <perm = [1, 2, 0]> (x)\n b = Transpose <perm = [0, 2, 1]> (a)\n y = Relu(b)",
                         "(float[2,3,4] x) => (float[3,2,4] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Transpose"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, TransposeTransposeIdentityDrops) {
  auto s = run_fold_pass("fuse_consecutive_ops",
                         "a = Transpose <perm = [1, 0]> (x)\n b = Transpose <perm = [1, 0]> (a)\n y = Relu(b)",
                         "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(FuseConsecutiveOps, ReshapeReshapeLastWins) {
  auto s = run_fold_pass(
      "fuse_consecutive_ops",
      "s1 = Constant <value = int64[2] {6, 4}> ()\n a = Reshape(x, s1)\n s2 = Constant <value = int64[3] {4, "
      "3, 2}> ()\n"
      " b = Reshape(a, s2)\n y = Relu(b)",
      "(float[2,3,4] x) => (float[4,3,2] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, ReshapeWithSharedIntermediateStays) {
  auto s = run_fold_pass(
      "fuse_consecutive_ops",
      "s1 = Constant <value = int64[2] {6, 4}> ()\n a = Reshape(x, s1)\n s2 = Constant <value = int64[1] {24}> ()\n"
      " b = Reshape(a, s2)\n y = Relu(b)",
      "(float[2,3,4] x) => (float[24] y, float[6,4] a)");
  EXPECT_EQ(count_ops(*s.model->graph, "Reshape"), 2u);
}

TEST(FuseConsecutiveOps, SqueezeUnsqueezeCancel) {
  auto s =
      run_fold_pass("fuse_consecutive_ops",
                    "ax = Constant <value = int64[1] {1}> ()\n a = Unsqueeze(x, ax)\n b = Squeeze(a, ax)\n y = Relu(b)",
                    "(float[2,3] x) => (float[2,3] y)");
  expect_folded(s, 1);
}

TEST(FuseConsecutiveOps, CastCastThroughWiderType) {
  // int32 -> int64 -> float: the middle type holds every int32: one Cast.
  auto s = run_fold_pass("fuse_consecutive_ops", "a = Cast <to = 7> (x)\n b = Cast <to = 1> (a)\n y = Relu(b)",
                         "(int32[4] x) => (float[4] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Cast"), 1u);
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, CastCastThroughNarrowerTypeStays) {
  // float -> int32 -> float truncates: both Casts stay.
  auto s = run_fold_pass("fuse_consecutive_ops", "a = Cast <to = 6> (x)\n b = Cast <to = 1> (a)\n y = Relu(b)",
                         "(float[4] x) => (float[4] y)");
  EXPECT_EQ(count_ops(*s.model->graph, "Cast"), 2u);
}

TEST(FuseConsecutiveOps, GraphOutput) {
  auto s =
      run_fold_pass("fuse_consecutive_ops", "a = Transpose <perm = [1, 0]> (x)\n y = Transpose <perm = [1, 0]> (a)",
                    "(float[2,3] x) => (float[2,3] y)");
  // y would have to become the graph input x: kept under its name.
  EXPECT_EQ(s.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(s);
}

TEST(FuseConsecutiveOps, InsideLoopBody) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[2,3] x) => (float[2,3] y) {
  t = Constant <value = bool {1}> ()
  y = Loop(n, t, x) <
    body = b (int64 i, bool c, float[2,3] acc) => (bool co, float[2,3] out) {
      co = Identity(c)
      p = Transpose <perm = [1, 0]> (acc)
      q = Transpose <perm = [1, 0]> (p)
      out = Neg(q)
    }
  >
}
)",
                               {"infer_shapes", "fuse_consecutive_ops", "eliminate_dead_nodes"});
  EXPECT_EQ(s.printed.find("Transpose"), std::string::npos) << s.printed;
}

TEST(FuseUnsqueezeChain, TwoUnsqueezesAreOneFromOpset13) {
  auto s = test::simplify_text(chain(13, "0", "3", "1,2,3,1"), kConsecutivePasses);
  ASSERT_EQ(s.nodes(), 2u) << s.printed;
  ASSERT_EQ(count_ops(*s.model->graph, "Unsqueeze"), 1u) << s.printed;
  EXPECT_EQ(axes_of(*only_unsqueeze(*s.model->graph), 13), (std::vector<int64_t>{0, 3}));
  expect_same_outputs(s);
  // Exact values: the elements unchanged, in order, at shape [1, 2, 3, 1].
  eval::Interpreter interp(*s.model);
  std::vector<float> x = {-1, 2, -3, 4, -5, 6};
  auto out = interp.run({{"x", ir::RuntimeValue::of(ops::make_tensor<float>({2, 3}, x))}});
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].tensor.dims(), (std::vector<int64_t>{1, 2, 3, 1}));
  EXPECT_EQ(out.value()[0].tensor.to_vector<float>(), (std::vector<float>{0, 2, 0, 4, 0, 6}));
}

TEST(FuseUnsqueezeChain, NegativeAndInterleavedAxes) {
  // [2, 3] -> [2, 3, 1] (a1 = -1) -> [2, 1, 3, 1, 1] (a2 = 1, -1): merged axes 1, 3, 4.
  auto s = test::simplify_text(chain(13, "-1", "1,-1", "2,1,3,1,1"), kConsecutivePasses);
  ASSERT_EQ(count_ops(*s.model->graph, "Unsqueeze"), 1u) << s.printed;
  EXPECT_EQ(axes_of(*only_unsqueeze(*s.model->graph), 13), (std::vector<int64_t>{1, 3, 4}));
  expect_same_outputs(s);
  // The outer inserting between the inner's dims: [2, 3] -> [1, 2, 3] (0) -> [1, 2, 1, 3] (2).
  auto t = test::simplify_text(chain(13, "0", "2", "1,2,1,3"), kConsecutivePasses);
  ASSERT_EQ(count_ops(*t.model->graph, "Unsqueeze"), 1u) << t.printed;
  EXPECT_EQ(axes_of(*only_unsqueeze(*t.model->graph), 13), (std::vector<int64_t>{0, 2}));
  expect_same_outputs(t);
}

TEST(FuseUnsqueezeChain, AttributeFormBeforeOpset13) {
  auto s = test::simplify_text(chain(11, "1", "0,-1", "1,2,1,3,1"), kConsecutivePasses);
  ASSERT_EQ(count_ops(*s.model->graph, "Unsqueeze"), 1u) << s.printed;
  const ir::Node* u = only_unsqueeze(*s.model->graph);
  EXPECT_EQ(u->num_inputs(), 1u);
  EXPECT_EQ(axes_of(*u, 11), (std::vector<int64_t>{0, 2, 4}));
  expect_same_outputs(s);
  // Three in a row are one.
  auto t = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 11]>
g (float[2,3] x) => (float[1,2,1,3,1] y) {
  u1 = Unsqueeze <axes = [0]> (x)
  u2 = Unsqueeze <axes = [2]> (u1)
  y = Unsqueeze <axes = [4]> (u2)
}
)",
                               kConsecutivePasses);
  ASSERT_EQ(t.nodes(), 1u) << t.printed;
  EXPECT_EQ(axes_of(*only_unsqueeze(*t.model->graph), 11), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(t.model->graph->outputs()[0]->name(), "y");
  expect_same_outputs(t);
}

TEST(FuseUnsqueezeChain, Refusals) {
  // The inner output read elsewhere too.
  auto shared = test::simplify_text(
      chain(13, "0", "3", "1,2,3,1", "r = Relu(u2)\n  v = Unsqueeze(u1, a2)\n  y = Add(r, v)"), kConsecutivePasses);
  EXPECT_EQ(count_ops(*shared.model->graph, "Unsqueeze"), 3u) << shared.printed;
  expect_same_outputs(shared);
  // Axes that are not constant.
  auto dyn = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x, int64[1] a) => (float[1,2,3,1] y) {
  b = Constant <value = int64[1] {0}> ()
  u1 = Unsqueeze(x, b)
  y = Unsqueeze(u1, a)
}
)",
                                 kConsecutivePasses);
  EXPECT_EQ(count_ops(*dyn.model->graph, "Unsqueeze"), 2u) << dyn.printed;
}

TEST(FuseUnsqueezeChain, GraphOutputIntermediateStays) {
  auto s = test::simplify_text(chain(13, "0", "3", "1,2,3,1", "y = Relu(u2)", ", float[1,2,3] u1"), kConsecutivePasses);
  EXPECT_EQ(count_ops(*s.model->graph, "Unsqueeze"), 2u) << s.printed;
  expect_same_outputs(s);
}

TEST(FuseUnsqueezeChain, InsideIfBranch) {
  auto s = test::simplify_text(R"(<ir_version: 8, opset_import: ["" : 13]>
g (bool c, float[2,3] x) => (float[1,2,3,1] y) {
  y = If(c) <
    then_branch = t () => (float[1,2,3,1] o) {
      a1 = Constant <value = int64[1] {0}> ()
      a2 = Constant <value = int64[1] {-1}> ()
      u1 = Unsqueeze(x, a1)
      o = Unsqueeze(u1, a2)
    },
    else_branch = e () => (float[1,2,3,1] o2) {
      a3 = Constant <value = int64[2] {0, 3}> ()
      n = Neg(x)
      o2 = Unsqueeze(n, a3)
    }
  >
}
)",
                               kConsecutivePasses);
  const ir::Node* iff = s.model->graph->first_node();
  ASSERT_EQ(iff->op_type, "If");
  const ir::Graph& then = *iff->subgraphs()[0];
  ASSERT_EQ(count_ops(then, "Unsqueeze"), 1u) << s.printed;
  EXPECT_EQ(axes_of(*only_unsqueeze(then), 13), (std::vector<int64_t>{0, 3}));
  expect_same_outputs(s, 4);
}

}  // namespace
}  // namespace onnxtrim
