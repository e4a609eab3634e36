// Deferred tensors (a folded weight that is a recipe until read whole): the default pipeline
// keeps them deferred, what it looks at of them it reads in parts, and saving streams them into
// the output byte for byte as if they had been made.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "ir/mapped.h"
#include "ir/rewriter.h"
#include "onnx_io/onnx_io.h"
#include "passes/folding_policy.h"
#include "passes/pass_manager.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

using test::TempDir;

// y = MatMul(x, Transpose(w)) + MatMul(x, Transpose(w2)); w2 equal to w when `twin`.
std::unique_ptr<ir::Model> transposed_weights(bool twin) {
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 300] x) => (float[N, 512] y) {
  w = Constant <value = float[1] {0.0}> ()
  w2 = Constant <value = float[1] {0.0}> ()
  wt = Transpose(w)
  wt2 = Transpose(w2)
  p = MatMul(x, wt)
  q = MatMul(x, wt2)
  y = Add(p, q)
}
)");
  if (!m) return nullptr;
  std::vector<float> v(512 * 300);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1013) * 0.25f - 100.0f;
  test::set_weight(*m, "w", ir::Tensor::from_vector(ir::DataType::kFloat, {512, 300}, v));
  if (!twin) v[7] += 1.0f;
  test::set_weight(*m, "w2", ir::Tensor::from_vector(ir::DataType::kFloat, {512, 300}, v));
  return m;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(Deferred, PipelineKeepsFoldedTransposesDeferred) {
  auto m = transposed_weights(false);
  ASSERT_TRUE(m);
  auto r = passes::simplify(*m, {});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  for (const char* name : {"wt", "wt2"}) {
    const ir::Value* v = m->graph->find_value(name);
    ASSERT_TRUE(v && v->initializer()) << name;
    EXPECT_TRUE(v->initializer()->deferred()) << name << ": something read it whole";
  }
}

// Folded transposes read by broadcasting ops (the splat rewrites look at such operands) stay
// deferred too.
TEST(Deferred, BroadcastOperandsStayDeferred) {
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 300, 512] x) => (float[N, 300, 512] y) {
  w = Constant <value = float[1] {0.0}> ()
  w2 = Constant <value = float[1] {0.0}> ()
  wt = Transpose(w)
  wt2 = Transpose(w2)
  p = Add(x, wt)
  y = Mul(p, wt2)
}
)");
  ASSERT_TRUE(m);
  std::vector<float> v(512 * 300);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1013) * 0.25f - 100.0f;
  for (const char* name : {"w", "w2"}) {
    test::set_weight(*m, name, ir::Tensor::from_vector(ir::DataType::kFloat, {512, 300}, v));
    v[3] += 1.0f;  // w2 differs from w
  }
  auto r = passes::simplify(*m, {});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  for (const char* name : {"wt", "wt2"}) {
    const ir::Value* val = m->graph->find_value(name);
    ASSERT_TRUE(val && val->initializer()) << name;
    EXPECT_TRUE(val->initializer()->deferred()) << name << ": something read it whole";
  }
}

// Two transposes of equal weights are one after the pipeline (sampled and compared in parts),
// and the survivor was never made whole.
TEST(Deferred, DuplicatesMergeWithoutMaking) {
  auto m = transposed_weights(true);
  ASSERT_TRUE(m);
  auto r = passes::simplify(*m, {});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(m->graph->initializers().size(), 1u);
  EXPECT_TRUE(m->graph->initializers()[0]->initializer()->deferred());
}

// A deferred transpose and an initializer made whole with the same bytes are one after the
// pipeline (their samples agree, whichever form they are in), in every round.
TEST(Deferred, MergesWithAnEqualTensorMadeWhole) {
  auto m = transposed_weights(false);
  ASSERT_TRUE(m);
  const ir::Tensor w = *m->graph->find_value("w")->initializer();
  std::vector<float> wt(512 * 300);
  for (size_t i = 0; i < 300; ++i)
    for (size_t j = 0; j < 512; ++j) std::memcpy(&wt[i * 512 + j], w.bytes() + 4 * (j * 300 + i), 4);
  // wt2 is no longer computed: it is an initializer holding w's transpose, made whole.
  ir::Value* wt2 = m->graph->find_value("wt2");
  test::set_weight(*m, "wt2", ir::Tensor::from_vector(ir::DataType::kFloat, {300, 512}, wt));
  ASSERT_FALSE(wt2->initializer()->deferred());
  auto r = passes::simplify(*m, {});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  std::vector<const ir::Value*> big;
  for (const ir::Value* v : m->graph->initializers())
    if (v->initializer()->byte_size() == 512u * 300 * 4) big.push_back(v);
  EXPECT_EQ(big.size(), 1u) << "the folded transpose and its equal were not merged";
}

TEST(Deferred, SplatTestReadsParts) {
  // A deferred tensor of 1 MB whose bytes are all 0x3f, then one whose last element differs.
  for (bool last_differs : {false, true}) {
    const size_t n = size_t{1} << 20;
    auto fill = [last_differs, n](uint8_t* dst, size_t b, size_t e) {
      for (size_t k = b; k < e; ++k) dst[k - b] = (last_differs && k + 4 >= n) ? 0x40 : 0x3f;
    };
    ir::Tensor t = ir::Tensor::shell(ir::DataType::kFloat, {static_cast<int64_t>(n / 4)});
    t.set_buffer(std::make_shared<ir::DeferredBuffer>(n, 4, fill), 0, n);
    EXPECT_EQ(passes::is_splat(t), !last_differs);
    EXPECT_TRUE(t.deferred());
  }
  // One that differs at once is told by its first elements.
  size_t made = 0;
  auto counting = [&made](uint8_t* dst, size_t b, size_t e) {
    made += e - b;
    for (size_t k = b; k < e; ++k) dst[k - b] = static_cast<uint8_t>(k);
  };
  ir::Tensor t = ir::Tensor::shell(ir::DataType::kFloat, {1 << 18});
  t.set_buffer(std::make_shared<ir::DeferredBuffer>(size_t{1} << 20, 4, counting), 0, size_t{1} << 20);
  EXPECT_FALSE(passes::is_splat(t));
  EXPECT_LE(made, 256u);
}

// Saved deferred, the file is the one saved from the made bytes: in one file, in bytes, and
// with external data.
TEST(Deferred, SavedByteForByteAsIfMade) {
  TempDir tmp;
  auto a = transposed_weights(false);
  auto b = transposed_weights(false);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(passes::simplify(*a, {}).is_ok());
  ASSERT_TRUE(passes::simplify(*b, {}).is_ok());
  for (const ir::Value* v : b->graph->initializers()) {
    (void)v->initializer()->bytes();  // made
    EXPECT_FALSE(v->initializer()->deferred());
  }
  auto deferred_count = [](const ir::Model& m) {
    int n = 0;
    for (const ir::Value* v : m.graph->initializers()) n += v->initializer()->deferred();
    return n;
  };
  ASSERT_EQ(deferred_count(*a), 2);

  ASSERT_TRUE(onnx_io::save_model(*a, tmp.file("a.onnx")).is_ok());
  ASSERT_TRUE(onnx_io::save_model(*b, tmp.file("b.onnx")).is_ok());
  std::string fa = slurp(tmp.file("a.onnx")), fb = slurp(tmp.file("b.onnx"));
  EXPECT_GT(fa.size(), 2u * 512 * 300 * 4);
  EXPECT_TRUE(fa == fb);
  auto sa = onnx_io::serialize_model(*a);
  ASSERT_TRUE(sa.is_ok());
  EXPECT_TRUE(sa.value() == fb);

  onnx_io::SaveOptions ext;
  ext.external = onnx_io::SaveOptions::ExternalData::kAlways;
  ASSERT_TRUE(onnx_io::save_model(*a, tmp.file("ea.onnx"), ext).is_ok());
  ASSERT_TRUE(onnx_io::save_model(*b, tmp.file("eb.onnx"), ext).is_ok());
  EXPECT_TRUE(slurp(tmp.file("ea.onnx.data")) == slurp(tmp.file("eb.onnx.data")));
  EXPECT_EQ(slurp(tmp.file("ea.onnx.data")).size(), 2u * 512 * 300 * 4);
  EXPECT_EQ(deferred_count(*a), 2);  // saving made nothing whole

  // Read back: wt[i][j] = w[j][i].
  auto back = onnx_io::load_model(tmp.file("ea.onnx"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  std::vector<float> wt = back.value()->graph->find_value("wt")->initializer()->to_vector<float>();
  ASSERT_EQ(wt.size(), 512u * 300);
  for (size_t i : {size_t{0}, size_t{1}, size_t{299}})
    for (size_t j : {size_t{0}, size_t{5}, size_t{511}})
      EXPECT_EQ(wt[i * 512 + j], static_cast<float>((j * 300 + i) % 1013) * 0.25f - 100.0f) << i << "," << j;
}

// A few bytes of a folded transpose of a weight mapped from the model file (the samples that
// find duplicates, the first elements of a splat test) are read from the file, element by
// element: no page of the mapping is touched (each would fault in 16). Larger ranges are made
// from the mapping.
TEST(Deferred, AFewBytesOfAMappedWeightAreReadFromItsFile) {
  TempDir tmp;
  auto m = transposed_weights(false);
  ASSERT_TRUE(m);
  ASSERT_TRUE(onnx_io::save_model(*m, tmp.file("m.onnx")).is_ok());
  auto loaded = onnx_io::load_model(tmp.file("m.onnx"));
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
  ir::Model& lm = *loaded.value();
  ASSERT_TRUE(ir::file_ref(*lm.graph->find_value("w")->initializer())) << "the weight is not mapped";
  passes::SimplifyOptions only_fold;
  only_fold.only = {"fold_constants"};
  ASSERT_TRUE(passes::simplify(lm, only_fold).is_ok());
  const ir::Tensor& wt = *lm.graph->find_value("wt")->initializer();  // 300 x 512, of w (512 x 300)
  ASSERT_TRUE(wt.deferred());
  auto want = [](size_t k) {  // element k of wt: w[k % 512][k / 512]
    return static_cast<float>(((k % 512) * 300 + k / 512) % 1013) * 0.25f - 100.0f;
  };
  (void)ir::take_mapped_touched();
  for (auto [off, n] :
       std::vector<std::pair<size_t, size_t>>{{0, 64}, {4 * 511, 8}, {4 * 1000, 8}, {wt.byte_size() - 64, 64}}) {
    std::vector<float> got(n / 4);
    wt.read(off, n, reinterpret_cast<uint8_t*>(got.data()));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want(off / 4 + i)) << off << "+" << 4 * i;
  }
  EXPECT_FALSE(ir::take_mapped_touched()) << "a few bytes were read through the mapping";
  std::vector<float> row(512);
  wt.read(4 * 512, 4 * 512, reinterpret_cast<uint8_t*>(row.data()));
  for (size_t i = 0; i < row.size(); ++i) EXPECT_EQ(row[i], want(512 + i)) << i;
  EXPECT_TRUE(ir::take_mapped_touched());
  EXPECT_TRUE(wt.deferred());
}

}  // namespace
}  // namespace onnxtrim
