// Unit tests of the random family: seeded RandomUniform, the *Like forms' shape and dtype,
// Bernoulli and Multinomial at their exact extremes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "../unit/test_util.h"
#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;
using test::run;
using test::vals;

// ------------------------------------------------------------------ random generation

TEST(RandomOps, SeededUniformIsReproducibleAndInRange) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
g () => (double[2,50] y) { y = RandomUniform<dtype = 11, low = 2.0, high = 3.0, seed = 7.0, shape = [2, 50]>() })";
  auto a = vals<double>(run(text, {}));
  auto b = vals<double>(run(text, {}));
  ASSERT_EQ(a.size(), 100u);
  EXPECT_EQ(a, b);
  for (double v : a) {
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 3.0);
  }
}

TEST(RandomOps, LikeOpsTakeShapeAndDtype) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int32[3,4] x) => (float[3,4] y) { y = RandomNormalLike<dtype = 1>(x) })",
               {{"x", make_tensor<int32_t>({3, 4}, std::vector<int32_t>(12, 0))}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.dtype(), ir::DataType::kFloat);
  EXPECT_EQ(r.value()[0].tensor.dims(), (ops::Dims{3, 4}));
}

TEST(RandomOps, BernoulliAtZeroAndOneIsExact) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] p) => (float[4] y) { y = Bernoulli(p) })",
               {{"p", make_tensor<float>({4}, {0, 1, 0, 1})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{0, 1, 0, 1}));
}

TEST(RandomOps, MultinomialPicksTheOnlyLikelyClass) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,3] x) => (int64[1,5] y) { y = Multinomial<dtype = 7, sample_size = 5>(x) })",
               {{"x", make_tensor<float>({1, 3}, {-1000, 0, -1000})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{1, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace onnxtrim
