// --profile and --node-reduction-plot: the passes' per-round series, the SVG chart, the peak
// memory of the platform seam.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <vector>

#include "driver/report.h"
#include "passes/pass_manager.h"
#include "support/platform.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

TEST(ReportProfile, RoundStatsStartBeforeTheFirstRoundAndEndAtTheResult) {
  // Identity, a no-op Transpose chain and a constant branch: the passes remove all but Relu.
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
  passes::SimplifyOptions so;
  auto r = passes::simplify(*m, so);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& rs = r.value().round_stats;
  ASSERT_EQ(rs.size(), static_cast<size_t>(r.value().rounds) + 1);
  EXPECT_EQ(rs.front().round, 0);
  EXPECT_EQ(rs.front().nodes, 4);
  EXPECT_EQ(rs.back().round, r.value().rounds);
  EXPECT_EQ(rs.back().nodes, 1);
  for (size_t i = 1; i < rs.size(); ++i) EXPECT_EQ(rs[i].round, static_cast<int>(i));
  // The last round changed nothing: its count is the one before it.
  ASSERT_GE(rs.size(), 3u);
  EXPECT_EQ(rs[rs.size() - 1].nodes, rs[rs.size() - 2].nodes);
}

TEST(ReportProfile, PlotIsASelfContainedLineChart) {
  std::vector<RoundStats> rs{{0, 40, 4096}, {1, 10, 1024}, {2, 8, 1024}};
  std::string svg = node_reduction_svg(rs);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.find("href"), std::string::npos);  // no external asset
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  // The nodes line: x from 70 (round 0) to 560 (round 2), y from 310 (0) up to 40 (the maximum, 40 nodes): 10 nodes at
  // 242.5.
  std::smatch mt;
  ASSERT_TRUE(std::regex_search(svg, mt, std::regex("id=\"nodes\"[^>]*points=\"([^\"]*)\"")));
  EXPECT_EQ(mt[1].str(), "70.0,40.0 315.0,242.5 560.0,256.0 ");
  ASSERT_TRUE(std::regex_search(svg, mt, std::regex("id=\"initializer_bytes\"[^>]*points=\"([^\"]*)\"")));
  EXPECT_EQ(mt[1].str(), "70.0,40.0 315.0,242.5 560.0,242.5 ");
  EXPECT_NE(svg.find("<title>round 1: 10</title>"), std::string::npos);
  EXPECT_NE(svg.find(">4.00 KiB</text>"), std::string::npos);  // the bytes axis' top tick
  EXPECT_NE(svg.find(">round (0: before the passes)</text>"), std::string::npos);
  EXPECT_NE(node_reduction_svg({}).find(">no pass ran</text>"), std::string::npos);
}

TEST(ReportProfile, PeakMemoryIsMeasuredAndReset) {
  int64_t first = platform::peak_resident_bytes(true);
  if (first < 0) GTEST_SKIP() << "no /proc/self/status, or a kernel that does not reset the peak (clear_refs)";
  // 64 MB touched: the peak since the reset holds them. (Mapped, not from the heap: a
  // sanitizer's allocator keeps freed heap memory resident, an unmapped region goes.)
  const size_t n = size_t{64} << 20;
  size_t reserved = 0;
  void* big = platform::map_anonymous(n, &reserved);
  ASSERT_NE(big, nullptr);
  std::memset(big, 1, n);
  int64_t with = platform::peak_resident_bytes(false);
  EXPECT_GE(with, static_cast<int64_t>(n));
  platform::unmap(big, reserved);
  // The reset brings the peak down to what is resident now: after the unmap, so without the
  // 64 MB (a reset while they are mapped keeps them, the resident set being the new peak). The
  // kernel's counters are approximate (per-CPU batches): the peak read here may be a few pages
  // off `with`, so it is only asked to hold the 64 MB.
  EXPECT_GE(platform::peak_resident_bytes(true), static_cast<int64_t>(n));
  int64_t after = platform::peak_resident_bytes(false);
  EXPECT_GT(after, 0);
  EXPECT_LT(after, with);  // the reset forgot the 64 MB
}

TEST(ReportProfile, ProfileTextSaysNotMeasured) {
  Report r;
  r.profile = {{"load", 0.0125, 3 << 20}, {"save", 0.002, -1}};
  r.passes = {{"fold_constants", 3, 5, 2, 0.004}, {"eliminate_identity", 3, 1, 1, 0.001}};
  std::string t = r.to_text();
  EXPECT_NE(t.find("  load            12.5 ms       3.00 MiB"), std::string::npos) << t;
  EXPECT_NE(t.find("  save             2.0 ms   not measured"), std::string::npos) << t;
  EXPECT_LT(t.find("  fold_constants "), t.find("  eliminate_identity ", t.find("pass (slowest first)")));
  std::string j = r.to_json();
  EXPECT_NE(j.find("\"peak_bytes\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"peak_bytes\": 3145728"), std::string::npos) << j;
}

}  // namespace
}  // namespace onnxtrim
