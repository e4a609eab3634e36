// --report FILE.html: the page's content (escaping, numbers, the diff's links) and the file
// written by simplify_file (whole, validated before anything is written).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "driver/report.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.hpp"
#include "test_util.h"

namespace onnxtrim {
namespace {

std::string report_html_read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(ReportHtml, NamesAreEscapedAndTheDiffLinksRemovedNodesToTheirReplacement) {
  Report r;
  r.input_path = "in<1>.onnx";
  r.before.nodes = 5;
  r.after.nodes = 2;
  r.before.op_histogram = {{"MatMul", 1}, {"Add", 1}, {"Relu", 3}};
  r.after.op_histogram = {{"Gemm", 1}, {"Relu", 1}};
  r.round_stats = {{0, 5, 64}, {1, 2, 64}, {2, 2, 64}};
  r.rounds = 2;
  r.profile = {{"load", 0.5, 1 << 20}, {"simplify", 0.25, -1}};
  r.passes = {{"fuse_gemm", 2, 1, 1, 0.125}};
  r.verification.ran = true;
  r.verification.samples = 1;
  r.verification.outputs = {{"y<script>alert(1)</script>", 1e-7, 0, 1, 0, true, "", true},
                            {"noise & \"z\"", 0, 0, 0, 0, true, "depends on RandomNormal 'n'", false}};
  GraphDiff& d = r.graph_diff;
  d.ran = true;
  d.kept = 1;
  d.removed = {{"mm", "MatMul", {"t"}}, {"add'1", "Add", {"h"}}, {"r2", "Relu", {"q"}}};
  d.added = {{"gemm", "Gemm", {"h"}}};
  const std::string h = report_html(r);
  // Arbitrary names never open a tag or an attribute.
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_NE(h.find("y&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(h.find("noise &amp; &quot;z&quot;"), std::string::npos);
  EXPECT_NE(h.find("Add &#39;add&#39;1&#39; -&gt; h"), std::string::npos);
  EXPECT_NE(h.find("<title>onnxtrim report: in&lt;1&gt;.onnx</title>"), std::string::npos);
  // Nothing to fetch: no src= and no link to another page (only the SVG's namespace names a URL).
  EXPECT_EQ(h.find(" src="), std::string::npos);
  EXPECT_EQ(std::regex_search(h, std::regex("href=\"(?!#)")), false);
  // The before/after row and the histogram rows hold the numbers.
  EXPECT_NE(h.find("<tr data-key=\"nodes\" class=\"changed\"><th>nodes (subgraphs included)</th><td>5</td><td>2</td>"),
            std::string::npos);
  EXPECT_NE(h.find("<tr data-op=\"Relu\" class=\"changed\"><th>Relu</th><td>3</td><td>1</td>"), std::string::npos);
  EXPECT_NE(h.find("<tr data-op=\"Gemm\" class=\"changed\"><th>Gemm</th><td>0</td><td>1</td>"), std::string::npos);
  // The round chart is the --node-reduction-plot SVG itself.
  EXPECT_NE(h.find(node_reduction_svg(r.round_stats)), std::string::npos);
  // Per-stage memory, 'not measured' where it was not.
  EXPECT_NE(h.find("<th>load</th><td>0.5</td><td>1048576 (1.00 MiB)</td>"), std::string::npos) << h;
  EXPECT_NE(h.find("<th>simplify</th><td>0.25</td><td>not measured</td>"), std::string::npos);
  EXPECT_NE(h.find("<tr data-pass=\"fuse_gemm\"><th>fuse_gemm</th><td>2</td><td>1</td><td>1</td><td>0.125</td>"),
            std::string::npos);
  // The output that was not compared is listed by name.
  EXPECT_NE(h.find("<ul id=\"not-comparable\"><li>noise &amp; &quot;z&quot;</li></ul>"), std::string::npos);
  // The Add whose output the Gemm now makes links to it, and back; the others have no known replacement.
  EXPECT_NE(h.find("<tr id=\"removed-1\"><td>1</td><td>Add &#39;add&#39;1&#39; -&gt; h</td><td><a href=\"#added-0\">"),
            std::string::npos);
  EXPECT_NE(h.find("<tr id=\"removed-0\"><td>0</td><td>MatMul &#39;mm&#39; -&gt; t</td><td></td><td></td></tr>"),
            std::string::npos);
  EXPECT_NE(h.find("<tr id=\"added-0\"><td>0</td><td>Gemm &#39;gemm&#39; -&gt; h</td><td><a href=\"#removed-1\">"),
            std::string::npos);
  // Every in-page link has its target.
  const std::regex link("href=\"#([^\"]+)\"");
  int links = 0;
  for (auto it = std::sregex_iterator(h.begin(), h.end(), link); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_NE(h.find("id=\"" + (*it)[1].str() + "\""), std::string::npos) << (*it)[1].str();
  EXPECT_EQ(links, 6 + 2);  // the six section links of the nav, the diff's two
}

TEST(ReportHtml, NoPassNoCheckNoDiffSaySo) {
  Report r;
  r.verification.skipped = "--no-verify";
  const std::string h = report_html(r);
  EXPECT_NE(h.find("<div id=\"rounds\"><p>No pass ran.</p></div>"), std::string::npos);
  EXPECT_NE(h.find("The check did not run: --no-verify"), std::string::npos);
  EXPECT_NE(h.find("<p>No graph diff.</p>"), std::string::npos);
}

TEST(ReportHtml, SimplifyFileWritesThePageWholeAndRefusesABadPathFirst) {
  test::TempDir tmp;
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  a = Identity(x)
  t1 = Transpose<perm = [1, 0]>(a)
  t2 = Transpose<perm = [1, 0]>(t1)
  y = Relu(t2)
}
)");
  ASSERT_TRUE(m);
  const std::string in = tmp.file("in.onnx"), out = tmp.file("out.onnx"), page = tmp.file("r.html");
  ASSERT_TRUE(onnx_io::save_model(*m, in).is_ok());
  Options o;
  o.set("report", page);
  EXPECT_TRUE(o.profile);
  EXPECT_TRUE(o.graph_diff);
  Report rep = simplify_file(in, out, o);
  EXPECT_EQ(rep.before.nodes, 4);
  EXPECT_EQ(rep.after.nodes, 1);
  const std::string h = report_html_read(page);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("<th>nodes (subgraphs included)</th><td>4</td><td>1</td>"), std::string::npos);
  // The Relu reads x now (matched by op and inputs, it is another node): the old one, making y,
  // links to the new one, which makes y too.
  EXPECT_NE(h.find("<p id=\"diff-summary\">0 node(s) kept (0 edited in place), 4 removed, 1 added"), std::string::npos)
      << h;
  EXPECT_NE(h.find("<td>Relu (unnamed) -&gt; y</td><td><a href=\"#added-0\">"), std::string::npos) << h;
  EXPECT_NE(h.find("<p id=\"check-status\" class=\"ok\">Equal"), std::string::npos);
  EXPECT_NE(h.find("<th>save</th>"), std::string::npos);  // the page is written after the save stage
  EXPECT_TRUE(h.size() > 100 && h.substr(h.size() - 8) == "</html>\n");
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) files += e.path().extension() != ".onnx";
  EXPECT_EQ(files, 1);

  // A folder that does not exist, or the model itself: exit 2 before the result is written.
  const std::string out2 = tmp.file("out2.onnx");
  for (const std::string& bad : {tmp.file("no/such/r.html"), in, tmp.path()}) {
    Options b;
    b.set("report", bad);
    try {
      simplify_file(in, out2, b);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage) << e.what();
      EXPECT_NE(std::string(e.what()).find("nothing was written"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(out2));
  }
  Options dash;
  EXPECT_THROW(dash.set("report", "-"), Error);

  // The in-memory run writes it too; its model's file is refused as the page.
  const std::string page2 = tmp.file("mem.html");
  Model mm = Model::load(in);
  Options om;
  om.set("report", page2);
  Report r2 = simplify(mm, om);
  EXPECT_EQ(r2.after.nodes, 1);
  EXPECT_NE(report_html_read(page2).find("<th>nodes (subgraphs included)</th><td>4</td><td>1</td>"), std::string::npos);
  Model again = Model::load(in);
  Options onto;
  onto.set("report", in);
  EXPECT_THROW(simplify(again, onto), Error);
}

}  // namespace
}  // namespace onnxtrim
