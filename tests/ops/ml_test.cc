// The ai.onnx.ml family (src/ops/ml/): LabelEncoder, Binarizer, ArrayFeatureExtractor,
// TreeEnsemble; exact values worked out by hand on tiny inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;
using test::run;
using test::strings;
using test::vals;

TEST(MlOps, LabelEncoderStringsToInts) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 4]>
g (string[4] x) => (int64[4] y) {
  y = ai.onnx.ml.LabelEncoder<keys_strings = ["a", "b"], values_int64s = [5, 6], default_int64 = -7>(x)
})",
               {{"x", strings({4}, {"b", "zz", "a", ""})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{6, -7, 5, -7}));
}

TEST(MlOps, LabelEncoderFloatKeysToStringsWithDefault) {
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 2]>
g (float[3] x) => (string[3] y) {
  y = ai.onnx.ml.LabelEncoder<keys_floats = [0.5, 1.5], values_strings = ["lo", "hi"]>(x)
})",
               {{"x", make_tensor<float>({3}, {1.5f, 0.5f, 2.0f})}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.strings(), (std::vector<std::string>{"hi", "lo", "_Unused"}));
}

TEST(MlOps, BinarizerAndArrayFeatureExtractor) {
  auto b = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (float[4] x) => (float[4] y) { y = ai.onnx.ml.Binarizer<threshold = 0.5>(x) })",
               {{"x", make_tensor<float>({4}, {0.5f, 0.6f, -1.0f, 2.0f})}});
  EXPECT_EQ(vals<float>(b), (std::vector<float>{0, 1, 0, 1}));
  auto a = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (int64[2,3] x, int64[2] i) => (int64[2,2] y) { y = ai.onnx.ml.ArrayFeatureExtractor(x, i) })",
               {{"x", make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"i", make_tensor<int64_t>({2}, {2, 0})}});
  EXPECT_EQ(vals<int64_t>(a), (std::vector<int64_t>{3, 1, 6, 4}));
  auto bad = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (int64[2,3] x, int64[1] i) => (int64[2,1] y) { y = ai.onnx.ml.ArrayFeatureExtractor(x, i) })",
                 {{"x", make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"i", make_tensor<int64_t>({1}, {3})}});
  EXPECT_FALSE(bad.is_ok());
}

TEST(MlOps, TreeEnsembleStumpWithMissingValues) {
  // One split: x0 <= 0.5 -> leaf 0 (weight 1) else leaf 1 (weight 2); NaN goes the true way.
  auto r = run(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 5]>
g (float[3,1] x) => (float[3,1] y) {
  y = ai.onnx.ml.TreeEnsemble<n_targets = 1, tree_roots = [0], nodes_featureids = [0],
      nodes_modes = uint8[1] {0}, nodes_splits = float[1] {0.5},
      nodes_truenodeids = [0], nodes_trueleafs = [1], nodes_falsenodeids = [1], nodes_falseleafs = [1],
      nodes_missing_value_tracks_true = [1],
      leaf_targetids = [0, 0], leaf_weights = float[2] {1.0, 2.0}>(x)
})",
               {{"x", make_tensor<float>({3, 1}, {0.0f, 1.0f, NAN})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{1, 2, 1}));
}

}  // namespace
}  // namespace onnxtrim
