// The pipeline's order is the one list of src/passes/pipeline.cc: every registered pass is in
// it, every entry names a registered pass, and the registry (the run, the report,
// --list-passes) follows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"

namespace onnxtrim {
namespace {

bool test_only(const std::string& name) { return name.rfind("test_", 0) == 0; }

TEST(PipelineOrder, ListsEveryRegisteredPass) {
  std::vector<std::string> missing;
  for (const passes::PassInfo* p : passes::PassRegistry::instance().all())
    if (!test_only(p->name) && passes::pipeline_position(p->name) == passes::pipeline_order().size())
      missing.push_back(p->name);
  EXPECT_TRUE(missing.empty()) << "registered but not in pipeline_order() (src/passes/pipeline.cc): "
                               << ::testing::PrintToString(missing);
}

TEST(PipelineOrder, EveryEntryIsARegisteredPassOnce) {
  std::set<std::string_view> seen;
  for (std::string_view name : passes::pipeline_order()) {
    EXPECT_NE(passes::PassRegistry::instance().find(name), nullptr) << name << " is listed but not registered";
    EXPECT_TRUE(seen.insert(name).second) << name << " is listed twice";
  }
}

TEST(PipelineOrder, TheRegistryFollowsTheList) {
  std::vector<std::string> listed;
  for (const passes::PassInfo* p : passes::PassRegistry::instance().all())
    if (!test_only(p->name)) listed.push_back(p->name);
  ASSERT_EQ(listed.size(), passes::pipeline_order().size());
  for (size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(listed[i], passes::pipeline_order()[i]) << "at " << i;
  // A few places the reasons in the list depend on.
  auto at = [](const char* n) { return passes::pipeline_position(n); };
  EXPECT_EQ(at("infer_shapes"), 0u);
  EXPECT_LT(at("fold_constants"), at("inline_constant_if"));
  EXPECT_LT(at("fuse_consecutive_ops"), at("fuse_reduce_unsqueeze"));
  EXPECT_LT(at("fuse_conv_bn"), at("fuse_conv_add"));
  EXPECT_LT(at("fuse_matmul_add"), at("fuse_gemm_bias"));
  EXPECT_LT(at("fuse_concat_splat"), at("fuse_pad_conv"));
  EXPECT_LT(at("fuse_rotary_embedding"), at("fuse_partial_rotary_embedding"));
  EXPECT_LT(at("fuse_partial_rotary_embedding"), at("eliminate_dead_nodes"));
  EXPECT_EQ(at("legalize_coreml"), passes::pipeline_order().size() - 1);
  // A pass the list does not name (write_verifier_test.cc registers test_break_graph) runs after
  // every listed one.
  std::vector<const passes::PassInfo*> all = passes::PassRegistry::instance().all();
  auto unlisted =
      std::find_if(all.begin(), all.end(), [](const passes::PassInfo* p) { return p->name == "test_break_graph"; });
  ASSERT_NE(unlisted, all.end());
  EXPECT_GE(static_cast<size_t>(unlisted - all.begin()), passes::pipeline_order().size());
  EXPECT_EQ(passes::pipeline_position("test_break_graph"), passes::pipeline_order().size());
  // The default pipeline is the list without the passes off by default.
  std::vector<std::string> defaults = passes::default_pipeline();
  EXPECT_EQ(defaults.front(), "infer_shapes");
  EXPECT_EQ(defaults.back(), "eliminate_unused_value_info");
}

}  // namespace
}  // namespace onnxtrim
