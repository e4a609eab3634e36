// Bounded memory: what a pass or the float conversion reads of a mapped weight leaves memory
// again, and a new heap tensor is resident only as far as it has been written. Measured as the
// resident size of the mapping that holds the bytes (/proc/self/smaps), so that the test sees
// exactly the pages the process keeps, not the page cache.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api/internal.h"
#include "ir/mapped.h"
#include "ir/rewriter.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.hpp"
#include "eval/interpreter.h"
#include "eval/verify.h"
#include "passes/pass_manager.h"
#include "convert/convert_float.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

using test::TempDir;

// Resident bytes of the mapping that contains p (-1: no mapping does).
int64_t resident_bytes_at(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  std::ifstream f("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(f, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream is(line);
    if (std::isxdigit(static_cast<unsigned char>(line[0])) && (is >> std::hex >> lo >> dash >> hi) && dash == '-') {
      inside = lo <= a && a < hi;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kb) == 1) return static_cast<int64_t>(kb) * 1024;
  }
  return -1;
}

// The process's resident size (VmRSS) or its peak since the last reset_peak (VmHWM), in bytes.
int64_t status_bytes(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::atoll(line.c_str() + std::strlen(key)) * 1024;
  return -1;
}
// Starts a new peak (Linux >= 4.0); false where that cannot be done.
bool reset_peak() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

constexpr int64_t kElems = int64_t{1} << 21;  // 8 MB of float32 per weight
constexpr int64_t kSmall = int64_t{1} << 20;  // resident bytes that count as "left memory"

TEST(Memory, NewHeapTensorIsResidentOnlyAsWritten) {
  ir::Tensor t(ir::DataType::kFloat, {kElems * 8});  // 64 MB
  const float* zeros = t.data<float>();
  int64_t before = resident_bytes_at(zeros);
  ASSERT_GE(before, 0);
  EXPECT_LT(before, kSmall);  // zeros that nobody wrote cost nothing
  EXPECT_EQ(zeros[0], 0.0f);
  EXPECT_EQ(zeros[kElems * 8 - 1], 0.0f);
  float* p = t.mutable_data<float>();
  EXPECT_EQ(p, zeros);  // the only owner writes in place
  for (int64_t i = 0; i < kElems * 4; ++i) p[i] = static_cast<float>(i);
  int64_t half = resident_bytes_at(zeros);
  EXPECT_GE(half, 32 * (int64_t{1} << 20) - kSmall);
  EXPECT_LT(half, 32 * (int64_t{1} << 20) + 2 * kSmall);  // the other half is still untouched
  EXPECT_EQ(t.data<float>()[12345], 12345.0f);
  EXPECT_EQ(t.data<float>()[kElems * 4 + 1], 0.0f);
  ir::Tensor empty(ir::DataType::kFloat, {0});
  EXPECT_EQ(empty.byte_size(), 0u);
}

// Two equal weights and one different, 8 MB each, mapped from external data.
struct Mapped {
  TempDir tmp;
  std::string path;
  Mapped() {
    auto m = onnx_io::parse_text_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 256] x) => (float[N, 8192] y) {
  a = Constant <value = float[1] {0.0}> ()
  b = Constant <value = float[1] {0.0}> ()
  c = Constant <value = float[1] {0.0}> ()
  h = Add(x, x)
  p = MatMul(h, a)
  q = MatMul(h, b)
  r = MatMul(h, c)
  s = Add(p, q)
  y = Add(s, r)
}
)");
    EXPECT_TRUE(m.is_ok()) << m.status().message();
    ir::Model& model = *m.value();
    std::vector<float> v(static_cast<size_t>(kElems));
    for (size_t i = 0; i < v.size(); ++i) v[i] = (static_cast<float>(i % 997) - 498) * 2e-5f;
    ir::Tensor a = ir::Tensor::from_vector(ir::DataType::kFloat, {256, kElems / 256}, v);
    for (float& x : v) x *= -0.5f;
    ir::Tensor c = ir::Tensor::from_vector(ir::DataType::kFloat, {256, kElems / 256}, v);
    for (auto [name, t] : {std::pair{"a", a}, std::pair{"b", a}, std::pair{"c", c}}) test::set_weight(model, name, t);
    onnx_io::SaveOptions opts;
    opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
    path = tmp.file("m.onnx");
    EXPECT_TRUE(onnx_io::save_model(model, path, opts).is_ok());
  }
};

// The passes run once on another copy: the code they run is in memory before the peak is
// measured (the executable's pages count in RSS as the model's do).
void simplify_warm_up(const std::string& path) {
  auto r = onnx_io::load_model(path);
  ASSERT_TRUE(r.is_ok());
  ASSERT_TRUE(passes::simplify(*r.value(), {}).is_ok());
}

TEST(Memory, SimplifyLeavesMappedWeightsOutOfMemory) {
  Mapped files;
  auto r = onnx_io::load_model(files.path);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ir::Model& m = *r.value();
  const ir::Tensor a = *m.graph->find_value("a")->initializer();  // holds the mapping
  const ir::Tensor c = *m.graph->find_value("c")->initializer();
  ASSERT_TRUE(ir::file_ref(a) && ir::file_ref(c));
  simplify_warm_up(files.path);
  bool peak_known = reset_peak();
  int64_t before = status_bytes("VmRSS:");
  auto res = passes::simplify(m, {});
  int64_t peak = status_bytes("VmHWM:");
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  std::printf("peak RSS %.1f MB over the %.1f MB before\n", (peak - before) / 1048576.0, before / 1048576.0);
  // A few MB of the weights sampled and compared at a time: 16 MB when the two equal weights
  // were both in memory whole for the comparison.
  if (peak_known) {
    EXPECT_LT(peak - before, 10 << 20);
  }
  // The equal weights were sampled, compared byte for byte and merged; c was sampled.
  EXPECT_EQ(m.graph->initializers().size(), 2u);
  EXPECT_EQ(m.graph->find_value("b"), nullptr);
  int64_t resident = resident_bytes_at(a.bytes());
  ASSERT_GE(resident, 0);
  EXPECT_LT(resident, kSmall) << "of 24 MB mapped";
  EXPECT_EQ(a.to_vector<float>()[997 + 3], (3 - 498) * 2e-5f);  // read back from the file
}

TEST(Memory, Float16ConversionLeavesWeightsOutOfMemory) {
  Mapped files;
  Model m = Model::load(files.path);
  const ir::Model& im = api::ir_model(m);
  const ir::Tensor a = *im.graph->find_value("a")->initializer();
  ASSERT_TRUE(ir::file_ref(a));
  Options o;
  o.dtype = "fp16";
  o.verify = Options::Verify::kOn;
  {
    // A first conversion of another copy: the code it runs is in memory before the peak is
    // measured (the executable's pages count in RSS as the model's do).
    Model warm = Model::load(files.path);
    simplify(warm, o);
  }
  bool peak_known = reset_peak();
  int64_t before = status_bytes("VmRSS:");
  Report rep = simplify(m, o);
  int64_t peak = status_bytes("VmHWM:");
  std::printf("peak RSS %.1f MB over the %.1f MB before\n", (peak - before) / 1048576.0, before / 1048576.0);
  ASSERT_TRUE(rep.verification.ok) << rep.verification.why;
  // One weight (8 MB: its rounded copy, or its float16 form widened by MatMul) and a few MB of
  // the one being read; 25 MB when the weights being compared, rounded and converted were
  // each in memory whole beside their copies.
  if (peak_known) {
    EXPECT_LT(peak - before, 14 << 20);
  }
  ASSERT_EQ(rep.verification.outputs.size(), 1u);
  EXPECT_LE(rep.verification.outputs[0].rel_l2, 1e-2);
  EXPECT_EQ(rep.conversion.initializers_converted, 2);
  // The observed run read the float32 weights and rounded copies of them, the conversion read
  // them again: none of it stays in memory, and neither do the float16 results.
  int64_t resident = resident_bytes_at(a.bytes());
  ASSERT_GE(resident, 0);
  EXPECT_LT(resident, kSmall) << "of 24 MB mapped";
  for (const ir::Value* v : api::ir_model(m).graph->initializers()) {
    const ir::Tensor& t = *v->initializer();
    EXPECT_EQ(t.dtype(), ir::DataType::kFloat16) << v->name();
    ASSERT_TRUE(ir::file_ref(t)) << v->name() << ": converted into the scratch file";
    EXPECT_LT(resident_bytes_at(t.bytes()), kSmall) << v->name();
  }
}

// The observed run of a Transpose of a large activation measures its float16 error on its
// output: no rounded copy of its input and no second output beside the first (the input and
// the output, 16 MB, over the baseline: 32 MB before).
TEST(Memory, Float16ObservationOfACopyHoldsNoCopies) {
  auto parsed = onnx_io::parse_text_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2048, 1024] x) => (float[1024, 2048] y) {
  y = Transpose(x)
}
)");
  ASSERT_TRUE(parsed.is_ok());
  const ir::Model& model = *parsed.value();
  convert::ConvertFloatOptions co;
  auto observe = [&](convert::FloatObservations& seen) {
    eval::Interpreter interp(model);
    interp.set_fast_float(true);
    interp.set_observer(seen.observer());
    auto feeds = eval::make_random_inputs(model, {}, 1);
    ASSERT_TRUE(feeds.is_ok());
    ASSERT_TRUE(interp.run(feeds.value()).is_ok());
  };
  {
    convert::FloatObservations warm(model, co);
    observe(warm);
  }
  convert::FloatObservations seen(model, co);
  bool peak_known = reset_peak();
  int64_t before = status_bytes("VmRSS:");
  observe(seen);
  int64_t peak = status_bytes("VmHWM:");
  std::printf("peak RSS %.1f MB over the %.1f MB before\n", (peak - before) / 1048576.0, before / 1048576.0);
  ASSERT_EQ(seen.node_error.size(), 1u);
  double e = seen.node_error.begin()->second;
  EXPECT_GT(e, 0);  // uniform values in [-1, 1) lose about 2^-12 of their size in float16
  EXPECT_LT(e, 1e-3);
  if (peak_known) {
    EXPECT_LT(peak - before, 24 << 20);
  }
}

// `text` with each weight (name, k) set to a rows x cols float32 tensor whose element i is
// (i + k) % 4099, saved with external data, loaded back from it (mapped) and simplified: the
// transposes of the weights are folded into deferred tensors.
std::unique_ptr<ir::Model> folded_from_file(const TempDir& tmp, const std::string& text,
                                            const std::vector<std::pair<std::string, size_t>>& weights, int64_t rows,
                                            int64_t cols) {
  {
    auto m = onnx_io::parse_text_model(text);
    EXPECT_TRUE(m.is_ok()) << m.status().message();
    if (!m.is_ok()) return nullptr;
    for (const auto& [name, k] : weights) {
      std::vector<float> v(static_cast<size_t>(rows * cols));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i + k) % 4099);
      test::set_weight(*m.value(), name, ir::Tensor::from_vector(ir::DataType::kFloat, {rows, cols}, v));
    }
    onnx_io::SaveOptions opts;
    opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
    EXPECT_TRUE(onnx_io::save_model(*m.value(), tmp.file("in.onnx"), opts).is_ok());
  }
  auto r = onnx_io::load_model(tmp.file("in.onnx"));
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  if (!r.is_ok()) return nullptr;
  EXPECT_TRUE(passes::simplify(*r.value(), {}).is_ok());
  return std::move(r).value();
}

// Saving m with external data to out.onnx, measured: the peak RSS over the start (when the
// kernel lets the peak be reset) and what stays in memory after. A first save brings the code
// in.
struct SaveMemory {
  bool peak_known;
  int64_t peak_over;
  int64_t kept;
};
SaveMemory measure_save(const ir::Model& m, const TempDir& tmp) {
  onnx_io::SaveOptions opts;
  opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
  EXPECT_TRUE(onnx_io::save_model(m, tmp.file("warm.onnx"), opts).is_ok());
  bool peak_known = reset_peak();
  int64_t before = status_bytes("VmRSS:");
  EXPECT_TRUE(onnx_io::save_model(m, tmp.file("out.onnx"), opts).is_ok());
  int64_t peak = status_bytes("VmHWM:"), after = status_bytes("VmRSS:");
  std::printf("saving: peak RSS %.1f MB over the %.1f MB before, %.1f MB after\n", (peak - before) / 1048576.0,
              before / 1048576.0, (after - before) / 1048576.0);
  return {peak_known, peak - before, after - before};
}

// Element (i, j) of the transpose of a rows x cols weight made by folded_from_file with k.
void expect_transposed(const ir::Tensor& t, int64_t rows, int64_t cols, size_t k, std::initializer_list<int64_t> is,
                       std::initializer_list<int64_t> js) {
  ASSERT_EQ(t.dims(), (std::vector<int64_t>{cols, rows}));
  for (int64_t i : is)
    for (int64_t j : js) {
      float got = 0;
      std::memcpy(&got, t.unaligned_bytes() + 4 * static_cast<size_t>(i * rows + j), 4);
      EXPECT_EQ(got, static_cast<float>((static_cast<size_t>(j * cols + i) + k) % 4099)) << k << ": " << i << "," << j;
    }
}

// A weight behind a Transpose (64 MB, mapped from external data) is folded into a deferred
// tensor and saved a piece at a time: neither the transposed weight nor the pages of its source
// stay in memory while it is written.
TEST(Memory, FoldedTransposeStreamsIntoTheSavedFile) {
  TempDir tmp;
  constexpr int64_t R = 8192, C = 2048;  // w: R x C float32, 64 MB
  auto m = folded_from_file(tmp, R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 2048] x) => (float[N, 8192] y) {
  w = Constant <value = float[1] {0.0}> ()
  wt = Transpose(w)
  y = MatMul(x, wt)
}
)",
                            {{"w", 0}}, R, C);
  ASSERT_TRUE(m);
  const ir::Tensor wt = *m->graph->find_value("wt")->initializer();
  ASSERT_TRUE(wt.deferred());
  SaveMemory s = measure_save(*m, tmp);
  if (s.peak_known) {
    EXPECT_LT(s.peak_over, 80 << 20);  // at most the source's pages, while it is read
  }
  EXPECT_LT(s.kept, 4 << 20);  // and they leave again
  EXPECT_TRUE(wt.deferred());
  auto back = onnx_io::load_model(tmp.file("out.onnx"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  expect_transposed(*back.value()->graph->find_value("wt")->initializer(), R, C, 0, {0, 1, C - 1}, {0, 777, R - 1});
}

// Two large folded transposes saved one after the other: each is made while its source is in
// memory, and the second is begun only once the first is made and its source let go (the
// makers running ahead into it would hold both sources).
TEST(Memory, LargeFoldedTransposesAreSavedOneSourceAtATime) {
  TempDir tmp;
  constexpr int64_t R = 6144, C = 2048;  // each weight: R x C float32, 48 MB
  auto m = folded_from_file(tmp, R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 2048] x) => (float[N, 6144] y) {
  w1 = Constant <value = float[1] {0.0}> ()
  w2 = Constant <value = float[1] {0.0}> ()
  t1 = Transpose(w1)
  t2 = Transpose(w2)
  a = MatMul(x, t1)
  b = MatMul(x, t2)
  y = Add(a, b)
}
)",
                            {{"w1", 1}, {"w2", 2}}, R, C);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->graph->find_value("t1")->initializer()->deferred());
  ASSERT_TRUE(m->graph->find_value("t2")->initializer()->deferred());
  SaveMemory s = measure_save(*m, tmp);
  if (s.peak_known) {
    EXPECT_LT(s.peak_over, 72 << 20);  // one source (48 MB) and the pieces, never both sources
  }
  EXPECT_LT(s.kept, 4 << 20);
  auto back = onnx_io::load_model(tmp.file("out.onnx"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  for (size_t k = 1; k <= 2; ++k)
    expect_transposed(*back.value()->graph->find_value("t" + std::to_string(k))->initializer(), R, C, k, {0, 5, C - 1},
                      {0, 333, R - 1});
}

TEST(Memory, CheckSamplesWaitOutOfMemory) {
  // Three samples of a 32 MB input and output: between runs they wait in scratch files with
  // their pages released, so the check holds one run's tensors, not every sample's.
  auto m = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[8388608] x) => (float[8388608] y) {
  y = Neg(x)
}
)");
  ASSERT_TRUE(m);
  eval::VerifyOptions vo;
  vo.samples = 3;
  auto v = eval::Verifier::create(*m, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  ASSERT_EQ(v.value()->feeds().size(), 3u);
  for (const auto& feeds : v.value()->feeds()) {
    const ir::Tensor& x = feeds.begin()->second.tensor;
    EXPECT_TRUE(ir::file_ref(x));
    EXPECT_LT(resident_bytes_at(x.bytes()), kSmall);
  }
  auto rep = v.value()->compare_with(*m);  // the model against itself: equal, pages read back
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
  for (const auto& feeds : v.value()->feeds())
    EXPECT_LT(resident_bytes_at(feeds.begin()->second.tensor.bytes()), kSmall);
  // Distinct samples survived the trip: the first elements differ between samples.
  const float a = v.value()->feeds()[0].begin()->second.tensor.data<float>()[0];
  const float b = v.value()->feeds()[1].begin()->second.tensor.data<float>()[0];
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace onnxtrim
