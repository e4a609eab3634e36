// eliminate_zero_trip_loop: a Loop that runs no iteration is its initial values; a graph output
// fed by an input is kept.
#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "ops/kernel_util.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::count_ops;
using test::expect_same_outputs;
using test::simplify_text;

TEST(EliminateZeroTripLoop, GraphOutputFedByInputIsKept) {
  // y would have to become the graph input x: a name cannot be kept without a node, so no.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  zero = Constant <value = int64 {0}> ()
  t = Constant <value = bool {1}> ()
  y = Loop(zero, t, x) <
    body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) { co = Identity(c)  out = Neg(acc) }
  >
}
)",
                         {"eliminate_zero_trip_loop"});
  EXPECT_EQ(count_ops(*s.model->graph, "Loop"), 1u);
}

TEST(EliminateZeroTripLoop, ReplacedByInitialValues) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  zero = Constant <value = int64 {0}> ()
  t = Constant <value = bool {1}> ()
  l = Loop(zero, t, x) <
    body = b (int64 i, bool c, float[2] acc) => (bool co, float[2] out) { co = Identity(c)  out = Neg(acc) }
  >
  y = Abs(l)
}
)");
  EXPECT_EQ(count_ops(*s.model->graph, "Loop"), 0u) << s.printed;
  expect_same_outputs(s);
}

}  // namespace
}  // namespace onnxtrim
