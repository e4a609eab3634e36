// The report's provenance: which main-graph nodes each pass run removed, made and edited
// (ir::NodeHistory through the Rewriter, passes::SimplifyResult::rewrites, GraphDiff::rewrites),
// and the page's links from a rewrite to the diff's rows and back.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "driver/report.h"
#include "ir/rewriter.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass_manager.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

// Add(MatMul(x, w), b) -> Gemm, the Add making the graph output y. Nodes are named "n_" + their
// first output (the text syntax names none).
const char* kProvenanceGemm = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,4] y)
  <float[3,4] w = {1,2,3,4,5,6,7,8,9,10,11,12}, float[4] b = {1,2,3,4}> {
  h = MatMul(x, w)
  y = Add(h, b)
}
)";

void provenance_name_nodes(ir::Graph& g) {
  g.for_each_node([](ir::Node* n) {
    n->name = "n_" + n->output(0)->name();
    for (ir::Graph* sg : n->subgraphs()) provenance_name_nodes(*sg);
  });
}

std::unique_ptr<ir::Model> provenance_model(const char* text) {
  auto m = test::parse(text);
  if (m) provenance_name_nodes(*m->graph);
  return m;
}

std::string provenance_refs(const std::vector<ir::NodeSnapshot>& l) {
  std::string s;
  for (const auto& n : l) {
    s += n.name + ":" + n.op + "->";
    for (const auto& o : n.outputs) s += o + ",";
    s += ";";
  }
  return s;
}

passes::SimplifyResult provenance_run(ir::Model& m, std::vector<std::string> only, bool record = true) {
  passes::SimplifyOptions o;
  o.only = std::move(only);
  o.verify_ir = true;
  o.record_rewrites = record;
  auto r = passes::simplify(m, o);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? std::move(r).value() : passes::SimplifyResult{};
}

TEST(ReportProvenance, AFusionRecordsExactlyTheNodesItRemovedAndMade) {
  auto m = provenance_model(kProvenanceGemm);
  ASSERT_TRUE(m);
  passes::SimplifyResult r = provenance_run(*m, {"fuse_matmul_add"});
  ASSERT_EQ(r.rewrites.size(), 1u);
  const passes::RewriteRecord& w = r.rewrites[0];
  EXPECT_EQ(w.pass, "fuse_matmul_add");
  EXPECT_EQ(w.round, 1);
  // The Add is erased first; its output's name went to the Gemm (a graph output), and the record
  // shows the name it had, not the "_replaced" one left behind.
  EXPECT_EQ(provenance_refs(w.removed), "n_y:Add->y,;n_h:MatMul->h,;");
  EXPECT_EQ(provenance_refs(w.added), "n_h_gemm:Gemm->y,;");
  EXPECT_EQ(provenance_refs(w.changed), "");
}

TEST(ReportProvenance, NothingIsRecordedWhenNotAskedOrWhenNothingFires) {
  auto m = provenance_model(kProvenanceGemm);
  ASSERT_TRUE(m);
  passes::SimplifyResult r = provenance_run(*m, {"fuse_matmul_add"}, /*record=*/false);
  EXPECT_GT(r.passes.at(0).changes, 0);  // it fired
  EXPECT_TRUE(r.rewrites.empty());
  // x of rank 3: the fusion refuses, so nothing is removed, made or edited.
  auto k = provenance_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,3] x) => (float[1,2,4] y)
  <float[3,4] w = {1,2,3,4,5,6,7,8,9,10,11,12}, float[4] b = {1,2,3,4}> {
  h = MatMul(x, w)
  y = Add(h, b)
}
)");
  ASSERT_TRUE(k);
  passes::SimplifyResult rk = provenance_run(*k, {"fuse_matmul_add"});
  EXPECT_EQ(rk.passes.at(0).changes, 0);
  EXPECT_TRUE(rk.rewrites.empty());
}

TEST(ReportProvenance, AChangeInsideABodyNamesTheNodeOwningIt) {
  auto m = provenance_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2,3] x) => (float[2,4] y)
  <float[3,4] w = {1,2,3,4,5,6,7,8,9,10,11,12}, float[4] b = {1,2,3,4}> {
  y = If(c) <then_branch = t () => (float[2,4] o1) {
    h1 = MatMul(x, w)
    o1 = Add(h1, b)
  }, else_branch = e () => (float[2,4] o2) {
    o2 = MatMul(x, w)
  }>
}
)");
  ASSERT_TRUE(m);
  passes::SimplifyResult r = provenance_run(*m, {"fuse_matmul_add"});
  ASSERT_EQ(r.rewrites.size(), 1u);
  EXPECT_EQ(provenance_refs(r.rewrites[0].removed), "");
  EXPECT_EQ(provenance_refs(r.rewrites[0].added), "");
  EXPECT_EQ(provenance_refs(r.rewrites[0].changed), "n_y:If->y,;");
}

TEST(ReportProvenance, TheRewriterKeepsANodeMadeAndErasedOutOfTheHistory) {
  auto m = provenance_model(kProvenanceGemm);
  ASSERT_TRUE(m);
  ir::Graph& g = *m->graph;
  ir::Node* mm = g.node_list().front();
  ir::Node* add = g.node_list().back();
  ir::Rewriter rw(*m);
  ir::NodeHistory h;
  rw.set_history(&h);
  ir::Node* relu = rw.insert_node(g, add, "Relu", {mm->output(0)}, 1, "tmp");
  rw.erase_node(relu);  // made and erased: in no list
  rw.set_attribute(mm, ir::Attribute::make_int("unused", 1));
  EXPECT_TRUE(h.removed.empty());
  EXPECT_TRUE(h.added.empty());
  EXPECT_EQ(h.changed.size(), 1u);
  EXPECT_TRUE(h.changed.count(mm));
  rw.set_history(nullptr);  // off: nothing more is recorded
  rw.set_attribute(add, ir::Attribute::make_int("unused", 1));
  EXPECT_EQ(h.changed.size(), 1u);
}

std::string provenance_read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(ReportProvenance, ThePageLinksEachRewriteToTheDiffRowsAndBack) {
  test::TempDir tmp;
  auto m = provenance_model(kProvenanceGemm);
  ASSERT_TRUE(m);
  const std::string in = tmp.file("in.onnx"), out = tmp.file("out.onnx"), page = tmp.file("r.html");
  ASSERT_TRUE(onnx_io::save_model(*m, in).is_ok());
  Options o;
  o.set("report", page);
  o.set("passes", "fuse_matmul_add");
  Report rep = simplify_file(in, out, o);
  ASSERT_EQ(rep.graph_diff.rewrites.size(), 1u);
  const GraphDiff& d = rep.graph_diff;
  ASSERT_EQ(d.removed.size(), 2u);
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.removed[0].name, "n_h");
  EXPECT_EQ(d.removed[1].name, "n_y");
  EXPECT_EQ(d.rewrites[0].removed.size(), 2u);
  // The JSON carries it.
  const nlohmann::json j = nlohmann::json::parse(rep.to_json());
  const nlohmann::json& jw = j.at("graph_diff").at("rewrites");
  ASSERT_EQ(jw.size(), 1u) << jw.dump();
  EXPECT_EQ(jw[0].at("pass"), "fuse_matmul_add");
  EXPECT_EQ(jw[0].at("round"), 1);
  EXPECT_EQ(jw[0].at("removed").size(), 2u);
  EXPECT_EQ(jw[0].at("removed")[0].at("name"), "n_y");
  EXPECT_EQ(jw[0].at("added")[0].at("outputs"), nlohmann::json::array({"y"}));
  EXPECT_TRUE(jw[0].at("changed").empty());
  const std::string h = provenance_read(page);
  // The rewrite's row: each removed node links to its row of the removed table, the Gemm to
  // its row of the added table.
  const size_t row =
      h.find("<tr id=\"rewrite-0\" data-pass=\"fuse_matmul_add\"><td>0</td><td>1</td><th>fuse_matmul_add</th>");
  ASSERT_NE(row, std::string::npos) << h;
  const std::string cells = h.substr(row, h.find("</tr>", row) - row);
  EXPECT_NE(cells.find("<td class=\"removed\"><a href=\"#removed-1\">Add &#39;n_y&#39; -&gt; y</a><br>"
                       "<a href=\"#removed-0\">MatMul &#39;n_h&#39; -&gt; h</a><br></td>"),
            std::string::npos)
      << cells;
  EXPECT_NE(cells.find("<td class=\"added\"><a href=\"#added-0\">Gemm &#39;n_h_gemm&#39; -&gt; y</a><br></td>"),
            std::string::npos)
      << cells;
  // Back: the rows name the rewrite that removed or made them; the passes table links to it.
  EXPECT_NE(
      h.find("<tr id=\"removed-0\"><td>0</td><td>MatMul &#39;n_h&#39; -&gt; h</td><td></td><td><a href=\"#rewrite-0\">"
             "fuse_matmul_add (round 1)</a></td></tr>"),
      std::string::npos);
  EXPECT_NE(
      h.find("<tr id=\"added-0\"><td>0</td><td>Gemm &#39;n_h_gemm&#39; -&gt; y</td><td><a href=\"#removed-1\">"
             "Add &#39;n_y&#39; -&gt; y</a> </td><td><a href=\"#rewrite-0\">fuse_matmul_add (round 1)</a></td></tr>"),
      std::string::npos)
      << h;
  EXPECT_NE(h.find("<tr data-pass=\"fuse_matmul_add\"><th><a href=\"#rewrite-0\">fuse_matmul_add</a></th>"),
            std::string::npos);
  // Every in-page link has its target.
  const std::regex link("href=\"#([^\"]+)\"");
  int links = 0;
  for (auto it = std::sregex_iterator(h.begin(), h.end(), link); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_NE(h.find("id=\"" + (*it)[1].str() + "\""), std::string::npos) << (*it)[1].str();
  EXPECT_GE(links, 6 + 3 + 3 + 1);  // nav, the rewrite's three, the rows' three back, the passes table's
}

TEST(ReportProvenance, ANodeEditedInPlaceIsInTheDiffAndLinkedFromItsRewrite) {
  // fuse_relu_clip: the Relu goes, the Clip reads x and a new lower bound (max(-1, 0)).
  test::TempDir tmp;
  auto m = provenance_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  r = Relu(x)
  lo = Constant <value = float {-1}> ()
  hi = Constant <value = float {0.25}> ()
  y = Clip(r, lo, hi)
}
)");
  ASSERT_TRUE(m);
  const std::string in = tmp.file("in.onnx"), out = tmp.file("out.onnx"), page = tmp.file("r.html");
  ASSERT_TRUE(onnx_io::save_model(*m, in).is_ok());
  Options o;
  o.set("report", page);
  o.set("passes", "fuse_relu_clip");
  Report rep = simplify_file(in, out, o);
  const GraphDiff& d = rep.graph_diff;
  ASSERT_EQ(d.rewrites.size(), 1u);
  ASSERT_EQ(d.rewrites[0].changed.size(), 1u);
  EXPECT_EQ(d.rewrites[0].changed[0].name, "n_y");
  ASSERT_EQ(d.rewrites[0].removed.size(), 1u);
  EXPECT_EQ(d.rewrites[0].removed[0].name, "n_r");
  // The diff: the Clip kept by name and op, its inputs changed; nothing else edited.
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].node.name, "n_y");
  EXPECT_EQ(d.changed[0].node.op, "Clip");
  EXPECT_EQ(d.changed[0].what, "inputs");
  const nlohmann::json j = nlohmann::json::parse(rep.to_json());
  EXPECT_EQ(j.at("graph_diff").at("nodes_changed").at(0).at("what"), "inputs");
  const std::string h = provenance_read(page);
  EXPECT_NE(h.find("<td class=\"changed\"><a href=\"#changed-0\">Clip &#39;n_y&#39; -&gt; y</a><br></td>"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("<tr id=\"changed-0\"><td>0</td><td>Clip &#39;n_y&#39; -&gt; y</td><td>inputs</td><td><a "
                   "href=\"#rewrite-0\">fuse_relu_clip (round 1)</a></td></tr>"),
            std::string::npos)
      << h;
  // Without a fusion the edited table is empty.
  Options none;
  none.graph_diff = true;
  none.set("passes", "eliminate_identity");
  EXPECT_TRUE(simplify_file(in, out, none).graph_diff.changed.empty());
}

}  // namespace
}  // namespace onnxtrim
