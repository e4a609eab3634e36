// A value that becomes a graph output when a node between them is removed is declared by the
// output alone: no value_info entry names a graph output in what onnxtrim writes. GPT-J's
// k.to(float32) in a float32 model, as torch 1.13 exports it: the no-op Cast's output is the
// graph output present_key and is read on by the attention (eliminate_nop_ops removes the Cast
// and the Concat's output takes over the name, after the facts' write-back gave it an entry).
#include <gtest/gtest.h>

#include "onnx_io/onnx_io.h"
#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

TEST(GraphOutputValueInfo, NoOpCastBeforeAGraphOutput) {
  auto s = test::simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[B,4,P,16] past, float[B,4,S,16] k) => (float[B,4,T,16] present_key, float[B,4,S,T] y) {
  cat = Concat <axis = 2> (past, k)
  present_key = Cast <to = 1> (cat)
  t = Transpose <perm = [0, 1, 3, 2]> (present_key)
  y = MatMul(k, t)
}
)");
  ASSERT_TRUE(s.model);
  const ir::Graph& g = *s.model->graph;
  EXPECT_EQ(test::count_ops(g, "Cast"), 0u) << s.printed;
  EXPECT_EQ(g.outputs()[0]->name(), "present_key");
  EXPECT_EQ(g.outputs()[0]->producer()->op_type, "Concat");
  for (const ir::Value* o : g.outputs()) EXPECT_FALSE(o->has_value_info) << o->name();
  bool transposed = false;  // the other intermediates keep their entries
  for (const ir::Value* v : g.value_info_order()) {
    EXPECT_FALSE(v->is_graph_output()) << v->name();
    transposed |= v->producer() && v->producer()->op_type == "Transpose";
  }
  EXPECT_TRUE(transposed) << s.printed;
  // As written and read back: the loader marks each value_info entry it reads.
  auto bytes = onnx_io::serialize_model(*s.model);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().message();
  auto back = onnx_io::parse_model(bytes.value(), "written", "");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_FALSE(back.value()->graph->value_info_order().empty());
  for (const ir::Value* v : back.value()->graph->value_info_order()) EXPECT_FALSE(v->is_graph_output()) << v->name();
  test::expect_same_outputs(s, 2, {{"B", 2}, {"P", 3}, {"S", 5}});
}

}  // namespace
}  // namespace onnxtrim
