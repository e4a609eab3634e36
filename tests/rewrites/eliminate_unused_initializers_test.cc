// eliminate_unused_initializers: only the initializers nothing reads go.
#include <gtest/gtest.h>

#include "rewrite_test_util.h"

namespace onnxtrim {
namespace {

using test::simplify_text;

TEST(EliminateUnusedInitializers, DropsOnlyUnreadOnes) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y)
<float[2] used = {1, 2}, float[2] unused = {3, 4}>
{
  y = Add(x, used)
}
)",
                         {"eliminate_unused_initializers"});
  ASSERT_EQ(s.model->graph->initializers().size(), 1u);
  EXPECT_EQ(s.model->graph->initializers()[0]->name(), "used");
}

}  // namespace
}  // namespace onnxtrim
