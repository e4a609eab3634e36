// Unit tests of the families added for the conformance push: tensor utilities, object detection,
// strings; plus function calls with attribute references. Its attention variants are in
// nn_test.cc, DFT and windows in signal_test.cc, the recurrent ops in rnn_test.cc.
// Exact values worked out by hand on tiny inputs; one edge case per op.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;

Result<std::vector<RuntimeValue>> run(const std::string& text, const std::map<std::string, ir::Tensor>& feeds) {
  auto m = test::parse(text);
  if (!m) return Status(ErrorCode::kInvalidModel, "parse failed");
  eval::Interpreter interp(*m);
  std::map<std::string, RuntimeValue> f;
  for (const auto& [k, v] : feeds) f[k] = RuntimeValue::of(v);
  return interp.run(f);
}

template <typename T>
std::vector<T> vals(const Result<std::vector<RuntimeValue>>& r, size_t i = 0) {
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r.is_ok()) return {};
  return r.value()[i].tensor.to_vector<T>();
}
ops::Dims dims(const Result<std::vector<RuntimeValue>>& r, size_t i = 0) {
  if (!r.is_ok()) return {-1};
  return r.value()[i].tensor.dims();
}
ir::Tensor strings(std::vector<int64_t> d, std::vector<std::string> v) {
  ir::Tensor t(ir::DataType::kString, std::move(d));
  t.strings() = std::move(v);
  return t;
}
void expect_near(const std::vector<float>& a, const std::vector<float>& b, float tol = 1e-5f) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << i;
}

// ------------------------------------------------------------------ tensor utilities

TEST(MoreOps, TensorScatterCircular) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 24]>
g (float[1,3,1] c, float[1,2,1] u, int64[1] w) => (float[1,3,1] y) { y = TensorScatter<mode = "circular", axis = 1>(c, u, w) })",
               {{"c", make_tensor<float>({1, 3, 1}, {0, 0, 0})},
                {"u", make_tensor<float>({1, 2, 1}, {7, 8})},
                {"w", make_tensor<int64_t>({1}, {2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{8, 0, 7}));
}

TEST(MoreOps, CenterCropPadCropsAndPads) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 18]>
g (int32[4] x, int64[1] s) => (int32[2] y) { y = CenterCropPad(x, s) })",
               {{"x", make_tensor<int32_t>({4}, {1, 2, 3, 4})}, {"s", make_tensor<int64_t>({1}, {2})}});
  EXPECT_EQ(vals<int32_t>(r), (std::vector<int32_t>{2, 3}));
  auto p = run(R"(<ir_version: 10, opset_import: ["" : 18]>
g (int32[2] x, int64[1] s) => (int32[5] y) { y = CenterCropPad(x, s) })",
               {{"x", make_tensor<int32_t>({2}, {1, 2})}, {"s", make_tensor<int64_t>({1}, {5})}});
  EXPECT_EQ(vals<int32_t>(p), (std::vector<int32_t>{0, 1, 2, 0, 0}));  // the odd pad goes after
}

TEST(MoreOps, ReverseSequenceCompressCol2Im) {
  auto rs = run(R"(<ir_version: 10, opset_import: ["" : 10]>
g (int64[3,2] x, int64[2] l) => (int64[3,2] y) { y = ReverseSequence<batch_axis = 1, time_axis = 0>(x, l) })",
                {{"x", make_tensor<int64_t>({3, 2}, {1, 10, 2, 20, 3, 30})}, {"l", make_tensor<int64_t>({2}, {3, 2})}});
  EXPECT_EQ(vals<int64_t>(rs), (std::vector<int64_t>{3, 20, 2, 10, 1, 30}));
  ir::Tensor cond(ir::DataType::kBool, {2});
  cond.mutable_bytes()[1] = 1;
  auto cp = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (float[2,2] x, bool[2] c) => (float[2,1] y) { y = Compress<axis = -1>(x, c) })",
                {{"x", make_tensor<float>({2, 2}, {1, 2, 3, 4})}, {"c", cond}});
  EXPECT_EQ(vals<float>(cp), (std::vector<float>{2, 4}));
  // Two 1x2 blocks that overlap on the middle pixel of a 1x3 image add up there.
  auto ci = run(R"(<ir_version: 10, opset_import: ["" : 18]>
g (float[1,2,2] x, int64[2] im, int64[2] bl) => (float[1,1,1,3] y) { y = Col2Im(x, im, bl) })",
                {{"x", make_tensor<float>({1, 2, 2}, {1, 2, 10, 20})},
                 {"im", make_tensor<int64_t>({2}, {1, 3})},
                 {"bl", make_tensor<int64_t>({2}, {1, 2})}});
  EXPECT_EQ(vals<float>(ci), (std::vector<float>{1, 12, 20}));
}

TEST(MoreOps, UniqueUnsortedWithAllOutputs) {
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (int64[5] x) => (int64[3] y, int64[3] i, int64[5] inv, int64[3] n) { y, i, inv, n = Unique<sorted = 0>(x) })",
               {{"x", make_tensor<int64_t>({5}, {3, 1, 3, 2, 1})}});
  EXPECT_EQ(vals<int64_t>(r, 0), (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(vals<int64_t>(r, 1), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(vals<int64_t>(r, 2), (std::vector<int64_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(vals<int64_t>(r, 3), (std::vector<int64_t>{2, 2, 1}));
  auto e = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (float[0] x) => (float[0] y) { y = Unique(x) })",
               {{"x", make_tensor<float>({0}, {})}});
  EXPECT_EQ(dims(e), (ops::Dims{0}));
}

// ------------------------------------------------------------------ object detection

TEST(MoreOps, NonMaxSuppressionKeepsTheBestOfOverlaps) {
  // Boxes 0 and 1 overlap (IoU 0.81 > 0.5): the higher-scored 1 wins; box 2 is apart.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 11]>
g (float[1,3,4] b, float[1,1,3] s, int64[1] m, float[1] iou) => (int64[2,3] y) { y = NonMaxSuppression(b, s, m, iou) })",
               {{"b", make_tensor<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6})},
                {"s", make_tensor<float>({1, 1, 3}, {0.5f, 0.9f, 0.1f})},
                {"m", make_tensor<int64_t>({1}, {10})},
                {"iou", make_tensor<float>({1}, {0.5f})}});
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));
}

TEST(MoreOps, RoiAlignAverageOfAConstantMap) {
  // Any RoI over a constant map averages to that constant.
  auto r = run(R"(<ir_version: 10, opset_import: ["" : 16]>
g (float[1,1,4,4] x, float[1,4] rois, int64[1] bi) => (float[1,1,2,2] y) { y = RoiAlign<output_height = 2, output_width = 2, sampling_ratio = 2>(x, rois, bi) })",
               {{"x", make_tensor<float>({1, 1, 4, 4}, std::vector<float>(16, 3.0f))},
                {"rois", make_tensor<float>({1, 4}, {0.5f, 0.5f, 3, 3})},
                {"bi", make_tensor<int64_t>({1}, {0})}});
  expect_near(vals<float>(r), {3, 3, 3, 3});
}

// ------------------------------------------------------------------ strings

TEST(MoreOps, StringOps) {
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

TEST(MoreOps, TfIdfBigramsWithSkips) {
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

// ------------------------------------------------------------------ functions with attribute references

TEST(MoreOps, FunctionCallResolvesAttributeReferences) {
  auto r = run(R"(
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.Scale<k = 3.0>(x) }
<domain: "local", opset_import: ["" : 18]>
Scale <k> (x) => (y) {
  c = Constant<value_float: float = @k>()
  y = Mul(x, c)
}
)",
               {{"x", make_tensor<float>({2}, {1, 2})}});
  EXPECT_EQ(vals<float>(r), (std::vector<float>{3, 6}));
}

// ------------------------------------------------------------------ inference evaluates constant nodes

TEST(MoreOps, InferenceEvaluatesNodesOfKnownInputs) {
  // Unique's output length is data-dependent, but its input is a constant: inference runs it.
  auto m = test::parse(R"(<ir_version: 10, opset_import: ["" : 17]>
g () => (int64[N] y) {
  c = Constant<value = int64[5] {3, 1, 3, 2, 1}>()
  y = Unique(c)
})");
  ASSERT_TRUE(m);
  passes::InferOptions io;
  io.use_declared = false;
  passes::ShapeInference si(*m, io);
  ASSERT_TRUE(si.run().is_ok());
  const ops::TypeInfo* f = si.facts(m->graph->outputs()[0]);
  ASSERT_TRUE(f && f->static_shape());
  EXPECT_EQ(*f->static_shape(), (std::vector<int64_t>{3}));
}

}  // namespace
}  // namespace onnxtrim
