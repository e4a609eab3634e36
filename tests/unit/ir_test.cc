// The IR: links, the Rewriter's name protection and change counting, the verifier, the printer.
#include <gtest/gtest.h>

#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/rewriter.h"
#include "ir/verifier.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

using test::parse;

const char* kChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,3] x) => (float[N,3] y) {
  a = Identity(x)
  b = Relu(a)
  y = Identity(b)
}
)";

TEST(Ir, LoadsLinksProducersAndUses) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  ir::Graph& g = *m->graph;
  ASSERT_EQ(g.num_nodes(), 3u);
  ir::Value* x = g.find_value("x");
  ir::Value* a = g.find_value("a");
  ASSERT_TRUE(x && a);
  EXPECT_TRUE(x->is_graph_input());
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_EQ(x->uses()[0].node, a->producer());
  EXPECT_EQ(a->producer()->op_type, "Identity");
  EXPECT_EQ(x->type.str(), "float[N,3]");
  EXPECT_TRUE(g.find_value("y")->is_graph_output());
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
}

TEST(Rewriter, ReplaceAllUsesCountsAndRelinks) {
  auto m = parse(kChain);
  ir::Graph& g = *m->graph;
  ir::Rewriter rw(*m);
  ir::Value* x = g.find_value("x");
  ir::Value* a = g.find_value("a");
  ASSERT_TRUE(rw.replace_all_uses_with(a, x));
  EXPECT_EQ(rw.changes(), 1);
  EXPECT_FALSE(a->has_uses());
  EXPECT_EQ(x->uses().size(), 2u);  // the Identity and the Relu
  rw.erase_node(a->producer());
  EXPECT_EQ(rw.changes(), 2);
  EXPECT_EQ(rw.nodes_removed(), 1);
  g.purge();
  EXPECT_EQ(g.num_nodes(), 2u);
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
}

TEST(Rewriter, GraphOutputKeepsItsName) {
  auto m = parse(kChain);
  ir::Graph& g = *m->graph;
  ir::Rewriter rw(*m);
  ir::Value* y = g.find_value("y");
  ir::Value* b = g.find_value("b");
  ir::Node* last = y->producer();
  // b takes over the name "y"; the Identity's output is renamed and becomes unused.
  ASSERT_TRUE(rw.replace_all_uses_with(y, b));
  EXPECT_EQ(b->name(), "y");
  EXPECT_EQ(g.outputs()[0], b);
  EXPECT_TRUE(b->is_graph_output());
  rw.erase_node(last);
  g.purge();
  EXPECT_EQ(g.find_value("y"), b);
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
}

// The value taking over a graph output's name loses its own value_info entry (the output's
// ValueInfo declares it); an entry the output came with moves over, once.
TEST(Rewriter, GraphOutputTakenOverDeclaresItOnce) {
  for (bool output_had_entry : {false, true}) {
    SCOPED_TRACE(output_had_entry);
    auto m = parse(kChain);
    ir::Graph& g = *m->graph;
    ir::Rewriter rw(*m);
    ir::Value* y = g.find_value("y");
    ir::Value* b = g.find_value("b");
    ir::Value* a = g.find_value("a");
    for (ir::Value* v : {a, b}) {
      v->has_value_info = true;
      g.value_info_order().push_back(v);
    }
    if (output_had_entry) {
      y->has_value_info = true;
      g.value_info_order().push_back(y);
    }
    ASSERT_TRUE(rw.replace_all_uses_with(y, b));
    EXPECT_EQ(b->name(), "y");
    EXPECT_EQ(b->has_value_info, output_had_entry);
    std::vector<ir::Value*> expected{a};
    if (output_had_entry) expected.push_back(b);
    EXPECT_EQ(g.value_info_order(), expected);
  }
}

TEST(Rewriter, RefusesToRenameAGraphInput) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y) {
  y = Identity(x)
}
)");
  ir::Graph& g = *m->graph;
  ir::Rewriter rw(*m);
  ir::Value* y = g.find_value("y");
  ir::Value* x = g.find_value("x");
  EXPECT_FALSE(rw.replace_all_uses_with(y, x));
  EXPECT_EQ(rw.changes(), 0);
  EXPECT_EQ(x->name(), "x");
  EXPECT_EQ(g.outputs()[0]->name(), "y");
}

TEST(Rewriter, InsertNodeAndInitializerGetUniqueNames) {
  auto m = parse(kChain);
  ir::Graph& g = *m->graph;
  ir::Rewriter rw(*m);
  ir::Value* c = rw.add_initializer(g, ir::Tensor::from_vector<float>(ir::DataType::kFloat, {3}, {1, 2, 3}), "a");
  EXPECT_NE(c->name(), "a");  // "a" is taken
  ir::Node* n = rw.insert_node(g, g.find_value("b")->producer(), "Add", {g.find_value("a"), c}, 1, "sum");
  EXPECT_EQ(n->num_outputs(), 1u);
  EXPECT_EQ(rw.nodes_added(), 1);
  EXPECT_EQ(rw.changes(), 2);
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
}

TEST(Verifier, CatchesUseBeforeDefinition) {
  auto m = parse(kChain);
  ir::Graph& g = *m->graph;
  // Move the Relu before the Identity that feeds it.
  ir::Node* relu = g.find_value("b")->producer();
  g.move_node_before(relu, g.first_node());
  Status st = ir::verify_model(*m);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("used before it is defined"), std::string::npos) << st.message();
  // The loader's sort repairs the order.
  std::string cyc;
  EXPECT_TRUE(g.topological_sort(&cyc));
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
}

TEST(Verifier, SubgraphSeesOuterScope) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  t = Relu(x)
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { o1 = Neg(t) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(t) }
  >
}
)");
  ASSERT_TRUE(m);
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
  ir::Value* t = m->graph->find_value("t");
  // The uses of t include the nodes inside both branches.
  EXPECT_EQ(t->uses().size(), 2u);
  EXPECT_NE(t->uses()[0].node->graph(), m->graph.get());
}

TEST(Printer, PrintsTextSyntax) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y)
<float[2] w = {1.5, 2}>
{
  y = Add(x, w)
}
)");
  ASSERT_TRUE(m);
  std::string s = ir::print_graph(*m->graph);
  EXPECT_EQ(s,
            "g (float[2] x) => (float[2] y)\n"
            "<float[2] w = {1.5, 2}>\n"
            "{\n"
            "  y = Add (x, w)\n"
            "}\n");
}

TEST(Graph, CloneIntoCopiesNodesAndSubgraphs) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  t = Relu(x)
  y = If(c) <
    then_branch = t1 () => (float[2] o1) { o1 = Neg(t) },
    else_branch = t2 () => (float[2] o2) { o2 = Abs(t) }
  >
}
)");
  ASSERT_TRUE(m);
  ir::Model other;
  m->graph->clone_into(*other.graph);
  EXPECT_EQ(ir::print_graph(*other.graph), ir::print_graph(*m->graph));
  EXPECT_TRUE(ir::verify_model(other).is_ok());
}

TEST(Tensor, CopyOnWriteSharesUntilWritten) {
  ir::Tensor a = ir::Tensor::from_vector<int64_t>(ir::DataType::kInt64, {2}, {1, 2});
  ir::Tensor b = a;
  EXPECT_EQ(a.bytes(), b.bytes());
  b.mutable_data<int64_t>()[0] = 7;
  EXPECT_EQ(a.data<int64_t>()[0], 1);
  EXPECT_EQ(b.data<int64_t>()[0], 7);
  EXPECT_FALSE(a.same_contents(b));
}

TEST(DType, StorageOfSubByteTypesIsPacked) {
  EXPECT_EQ(ir::dtype_storage_bytes(ir::DataType::kInt4, 3), 2u);
  EXPECT_EQ(ir::dtype_storage_bytes(ir::DataType::kUint2, 5), 2u);
  EXPECT_EQ(ir::dtype_storage_bytes(ir::DataType::kFloat16, 3), 6u);
  EXPECT_EQ(ir::dtype_name(ir::DataType::kBFloat16), "bfloat16");
}

// From 4 MB, a tensor's bytes are an anonymous mapping: zero-filled, written in place by its
// only holder, copied on write when shared, like the small ones in a vector.
TEST(Tensor, LargeTensorsAreZeroFilledMappingsCopiedOnWrite) {
  ir::Tensor a(ir::DataType::kFloat, {1025, 1025});  // a little over 4 MB, not whole pages
  ASSERT_EQ(a.byte_size(), size_t{1025 * 1025 * 4});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.bytes()) % (size_t{2} << 20), 0u);  // on a huge-page boundary
  EXPECT_NE(dynamic_cast<const ir::MmapBuffer*>(a.buffer().get()), nullptr);
  const float* z = a.data<float>();
  size_t nonzero = 0;
  for (int64_t k = 0; k < a.numel(); ++k) nonzero += z[k] != 0.0f;
  EXPECT_EQ(nonzero, 0u);
  const uint8_t* before = a.bytes();
  a.mutable_data<float>()[7] = 3.5f;
  EXPECT_EQ(a.bytes(), before);  // sole holder: in place
  ir::Tensor b = a;
  b.mutable_data<float>()[7] = -1.0f;  // shared: b gets its own copy
  EXPECT_NE(b.bytes(), a.bytes());
  EXPECT_EQ(a.data<float>()[7], 3.5f);
  EXPECT_EQ(b.data<float>()[7], -1.0f);
  EXPECT_EQ(b.data<float>()[8], 0.0f);
  EXPECT_EQ(b.data<float>()[b.numel() - 1], 0.0f);
  b.mutable_data<float>()[b.numel() - 1] = 1.0f;  // the last bytes are mapped and writable
  EXPECT_EQ(b.data<float>()[b.numel() - 1], 1.0f);
  b.mutable_data<float>()[b.numel() - 1] = 0.0f;
  EXPECT_FALSE(a.same_contents(b));
  b.mutable_data<float>()[7] = 3.5f;
  EXPECT_TRUE(a.same_contents(b));
}

// unaligned_bytes: the same bytes as bytes(), wherever they are.
TEST(Tensor, UnalignedBytesAreTheBytes) {
  auto buf = std::make_shared<ir::VectorBuffer>(std::vector<uint8_t>{9, 1, 0, 0, 0, 2, 0, 0, 0});
  ir::Tensor t = ir::Tensor::shell(ir::DataType::kInt32, {2});
  t.set_buffer(buf, 1, 8);
  EXPECT_EQ(t.unaligned_bytes(), t.bytes());
  EXPECT_EQ(t.unaligned_bytes(), buf->data() + 1);
  ir::Tensor empty;
  EXPECT_EQ(empty.unaligned_bytes(), nullptr);
}

}  // namespace
}  // namespace onnxtrim
