// The string family (src/ops/string/): StringSplit, RegexFullMatch, StringNormalizer,
// StringConcat, TfIdfVectorizer; exact values worked out by hand on tiny inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;
using test::run;
using test::strings;
using test::vals;

TEST(StringOps, SplitMatchNormalizeConcat) {
  auto sp = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (string[2] x) => (string[2,3] y, int64[2] n) { y, n = StringSplit<delimiter = ",">(x) })",
                {{"x", strings({2}, {"a,b,,", "c"})}});
  ASSERT_TRUE(sp.is_ok()) << sp.status().message();
  EXPECT_EQ(sp.value()[0].tensor.dims(), (ops::Dims{2, 4}));
  EXPECT_EQ(sp.value()[0].tensor.strings(), (std::vector<std::string>{"a", "b", "", "", "c", "", "", ""}));
  EXPECT_EQ(vals<int64_t>(sp, 1), (std::vector<int64_t>{4, 1}));
  auto ws = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (string[1] x) => (string[1,2] y, int64[1] n) { y, n = StringSplit<maxsplit = 1>(x) })",
                {{"x", strings({1}, {"  one two  three "})}});
  ASSERT_TRUE(ws.is_ok());
  EXPECT_EQ(ws.value()[0].tensor.strings(), (std::vector<std::string>{"one", "two  three"}));
  auto re = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (string[3] x) => (bool[3] y) { y = RegexFullMatch<pattern = "a+b">(x) })",
                {{"x", strings({3}, {"aab", "aabx", ""})}});
  EXPECT_EQ(vals<uint8_t>(re), (std::vector<uint8_t>{1, 0, 0}));
  auto nz = run(R"(<ir_version: 10, opset_import: ["" : 10]>
g (string[3] x) => (string[1] y) { y = StringNormalizer<stopwords = ["A", "b", "c"]>(x) })",
                {{"x", strings({3}, {"a", "B", "c"})}});
  ASSERT_TRUE(nz.is_ok());
  EXPECT_EQ(nz.value()[0].tensor.strings(), (std::vector<std::string>{""}));  // all removed: one empty string
  auto cc = run(R"(<ir_version: 10, opset_import: ["" : 20]>
g (string[2] x, string y) => (string[2] z) { z = StringConcat(x, y) })",
                {{"x", strings({2}, {"a", ""})}, {"y", strings({}, {"!"})}});
  ASSERT_TRUE(cc.is_ok());
  EXPECT_EQ(cc.value()[0].tensor.strings(), (std::vector<std::string>{"a!", "!"}));
}

TEST(StringOps, TfIdfBigramsWithSkips) {
  // Pool: bigram (1, 2). With max_skip_count 1, [1, 2, 1, 9, 2] has (1,2) at skip 0 and at
  // skip 1 (1 _ 2 twice: positions 0-2? no: 2-4).
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 9]>
g (int64[5] x) => (float[1] y) {
  y = TfIdfVectorizer<mode = "TF", min_gram_length = 2, max_gram_length = 2, max_skip_count = 1,
      ngram_counts = [0, 0], ngram_indexes = [0], pool_int64s = [1, 2]>(x)
})",
               {{"x", make_tensor<int64_t>({5}, {1, 2, 1, 9, 2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{2}));
}

}  // namespace
}  // namespace onnxtrim
