// The structural verifier every writer runs (ir::verify_for_write, issue 30): what it catches,
// that it names the pass that broke the graph, that nothing is written, and that messages carry
// no raw bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ir/verifier.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "support/text.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

namespace fs = std::filesystem;
using test::parse;

constexpr const char* kVerifierChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  a = Relu(x)
  b = Neg(a)
  y = Abs(b)
}
)";

// A test-only pass that breaks the graph as a faulty rewrite would: the last node moves to the
// front, before the producers of what it reads (once per run).
class BreakGraph final : public passes::Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, passes::PassContext&) override {
    if (done_ || g.parent() || g.num_nodes() < 2) return;
    std::vector<ir::Node*> nodes = g.node_list();
    g.move_node_before(nodes.back(), nodes.front());
    rw.note_change(nodes.back());
    done_ = true;
  }

 private:
  bool done_ = false;
};

const bool kRegistered = [] {
  passes::PassRegistry::instance().add({"test_break_graph", "test only: moves the last node first", false,
                                        [] { return std::unique_ptr<passes::Pass>(new BreakGraph()); }});
  return true;
}();

TEST(WriteVerifier, NamesThePassThatBrokeTheGraph) {
  ASSERT_TRUE(kRegistered);
  auto m = parse(kVerifierChain);
  passes::SimplifyOptions o;
  o.only = {"test_break_graph"};
  auto r = passes::simplify(*m, o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInternal);
  const std::string msg = r.status().message();
  EXPECT_NE(msg.find("after pass test_break_graph"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(Abs)'"), std::string::npos) << msg;  // the node that reads too early
  EXPECT_NE(msg.find("input 'b' is used before it is defined"), std::string::npos) << msg;
}

TEST(WriteVerifier, SaveWritesNothingForABrokenGraph) {
  auto m = parse(kVerifierChain);
  ir::Graph& g = *m->graph;
  g.move_node_before(g.find_value("y")->producer(), g.first_node());
  m->changed_by = "pass some_rewrite";
  fs::path dir = fs::temp_directory_path() / "onnxtrim_write_verifier";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Status st = onnx_io::save_model(*m, (dir / "out.onnx").string());
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), ErrorCode::kInternal);
  EXPECT_NE(st.message().find("after pass some_rewrite"), std::string::npos) << st.message();
  EXPECT_TRUE(fs::is_empty(dir));  // neither the model nor a temporary file
  auto bytes = onnx_io::serialize_model(*m);
  ASSERT_FALSE(bytes.is_ok());
  EXPECT_EQ(bytes.status().code(), ErrorCode::kInternal);
  fs::remove_all(dir);
}

// Through the public API, with the check off: exit code 70, the pass named, no file.
TEST(WriteVerifier, PublicApiWithoutTheCheck) {
  ASSERT_TRUE(kRegistered);
  fs::path dir = fs::temp_directory_path() / "onnxtrim_write_verifier_api";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto m = parse(kVerifierChain);
  ASSERT_TRUE(onnx_io::save_model(*m, (dir / "in.onnx").string()).is_ok());
  Options o;
  o.passes = {"test_break_graph"};
  o.verify = Options::Verify::kOff;
  try {
    simplify_file((dir / "in.onnx").string(), (dir / "out.onnx").string(), o);
    ADD_FAILURE() << "a broken graph was written";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitInternal);
    EXPECT_NE(std::string(e.what()).find("after pass test_break_graph"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
  fs::remove_all(dir);
}

TEST(WriteVerifier, CatchesNamesAndInitializerTypes) {
  auto m = parse(kVerifierChain);
  EXPECT_TRUE(ir::verify_for_write(*m).is_ok());
  ir::Graph& g = *m->graph;
  // A name that is not UTF-8 (what freed memory looks like).
  g.rename_value(g.find_value("a"), std::string("a\x80\x0e", 3));
  Status st = ir::verify_for_write(*m);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.detail().find("is not valid UTF-8"), std::string::npos) << st.detail();
  EXPECT_NE(st.message().find("a\\x80\\x0e"), std::string::npos) << st.message();  // escaped
  g.rename_value(g.find_value(std::string("a\x80\x0e", 3)), "a");
  EXPECT_TRUE(ir::verify_for_write(*m).is_ok());
  // An initializer declared with another type than its tensor's.
  ir::Rewriter rw(*m);
  ir::Value* w = rw.add_initializer(g, ir::Tensor(ir::DataType::kFloat, {3}), "w");
  w->type = ir::Type::tensor(ir::DataType::kFloat, {ir::Dim::known(4)});
  st = ir::verify_for_write(*m);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.detail().find("initializer 'w' is declared"), std::string::npos) << st.detail();
}

// An input of fuzz/regressions/, loaded as the CLI loads it (null, and a failure, if it does not load).
std::unique_ptr<ir::Model> load_regression(const std::string& name) {
  auto m = onnx_io::load_model(std::string(ONNXTRIM_SOURCE_DIR) + "/fuzz/regressions/" + name);
  EXPECT_TRUE(m.is_ok()) << m.status().message();
  return m.is_ok() ? std::move(m).value() : nullptr;
}

// The check before writing passes on m as loaded, and m simplifies and serializes (into *bytes).
void simplify_and_serialize(ir::Model& m, std::string* bytes) {
  EXPECT_TRUE(ir::verify_for_write(m).is_ok());
  passes::SimplifyOptions o;
  auto r = passes::simplify(m, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  auto b = onnx_io::serialize_model(m);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  *bytes = std::move(b).value();
}

// Found by fuzz.pipeline_short: a file's graph input named "" is the file's, not a broken name.
TEST(WriteVerifier, AnUnnamedGraphInputIsWrittenBack) {
  auto m = load_regression("unnamed_graph_input.onnx");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->graph->inputs().size(), 2u);
  EXPECT_EQ(m->graph->inputs()[1]->name(), "");
  std::string bytes;
  simplify_and_serialize(*m, &bytes);
  // A node output without a name is refused.
  auto chain = parse(kVerifierChain);
  chain->graph->rename_value(chain->graph->find_value("a"), "");
  Status st = ir::verify_for_write(*chain);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.detail().find("a node output has no name"), std::string::npos) << st.detail();
}

// Found by fuzz.pipeline_short: python3-onnx and ONNX Runtime load a file whose names are not
// UTF-8; onnxtrim takes it too and writes its names back.
TEST(WriteVerifier, AFileWithNamesThatAreNotUtf8IsWrittenBack) {
  auto m = load_regression("non_utf8_name.onnx");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->unchecked_names_and_types);
  std::string bytes;
  simplify_and_serialize(*m, &bytes);
  auto again = onnx_io::parse_model(bytes, "<written>", ".");
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_TRUE(again.value()->unchecked_names_and_types);
  // A model whose names were UTF-8 as loaded is not allowed to end with one that is not.
  auto chain = parse(kVerifierChain);
  EXPECT_FALSE(chain->unchecked_names_and_types);
}

TEST(Text, ValidUtf8) {
  EXPECT_TRUE(support::valid_utf8("plain /x.1:0"));
  EXPECT_TRUE(support::valid_utf8("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"));  // é 中 😀
  EXPECT_FALSE(support::valid_utf8("\x80"));                                 // a continuation byte alone
  EXPECT_FALSE(support::valid_utf8("\xc3"));                                 // cut short
  EXPECT_FALSE(support::valid_utf8("\xc0\xaf"));                             // overlong '/'
  EXPECT_FALSE(support::valid_utf8("\xed\xa0\x80"));                         // a surrogate
  EXPECT_FALSE(support::valid_utf8("\xf4\x90\x80\x80"));                     // past U+10FFFF
}

TEST(Text, PrintableEscapesWhatIsNotText) {
  EXPECT_EQ(support::printable("node 'x': ok"), "node 'x': ok");
  EXPECT_EQ(support::printable("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(support::printable(std::string("a\x80P\x0e\x16"
                                           "5\x02\n\x7f",
                                           9)),
            "a\\x80P\\x0e\\x165\\x02\\x0a\\x7f");
  EXPECT_EQ(support::printable(std::string("\0", 1)), "\\x00");
  // Errors thrown by the API and Status messages carry the escaped form.
  EXPECT_STREQ(Error(kExitInternal, "input '\x80P'").what(), "input '\\x80P'");
  EXPECT_EQ(Status(ErrorCode::kInvalidModel, "bad '\x01'").message(), "bad '\\x01'");
}

}  // namespace
}  // namespace onnxtrim
