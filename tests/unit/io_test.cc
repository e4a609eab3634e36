// ONNX load/save: external data, the 2 GB limit, errors that name the file and the node.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ir/rewriter.h"
#include "ir/verifier.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.h"
#include "onnxtrim/onnxtrim.hpp"
#include "test_util.h"

namespace onnxtrim {
namespace {

namespace fs = std::filesystem;
using test::parse;
using test::TempDir;

const char* kAddModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) {
  y = Relu(x)
}
)";

ir::Tensor pattern_tensor(int64_t n, float seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = seed + static_cast<float>(i % 1000) * 0.5f;
  return ir::Tensor::from_vector(ir::DataType::kFloat, {n}, v);
}

TEST(ExternalData, SaveAndReloadGivesIdenticalTensors) {
  TempDir tmp;
  auto m = parse(kAddModel);
  ASSERT_TRUE(m);
  ir::Rewriter rw(*m);
  std::vector<ir::Tensor> want = {pattern_tensor(300000, 1), pattern_tensor(5000, 2), pattern_tensor(3, 3),
                                  pattern_tensor(1 << 20, 4)};
  for (size_t i = 0; i < want.size(); ++i) rw.add_initializer(*m->graph, want[i], "w" + std::to_string(i));

  onnx_io::SaveOptions opts;
  opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
  opts.location = "weights.bin";
  std::string path = tmp.file("m.onnx");
  ASSERT_TRUE(onnx_io::save_model(*m, path, opts).is_ok());
  ASSERT_TRUE(fs::exists(tmp.file("weights.bin")));
  // Only the tiny tensor stays inside the model file.
  EXPECT_LT(fs::file_size(path), 2000u);
  EXPECT_GE(fs::file_size(tmp.file("weights.bin")), (300000u + 5000u + (1u << 20)) * 4u);

  auto r = onnx_io::load_model(path);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& inits = r.value()->graph->initializers();
  ASSERT_EQ(inits.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(inits[i]->name(), "w" + std::to_string(i));
    EXPECT_TRUE(inits[i]->initializer()->same_contents(want[i])) << i;
  }
  EXPECT_TRUE(inits[0]->initializer()->external.present());
  EXPECT_FALSE(inits[2]->initializer()->external.present());

  // Saved again under auto, external tensors stay external (in the new file's own data file).
  std::string path2 = tmp.file("m2.onnx");
  ASSERT_TRUE(onnx_io::save_model(*r.value(), path2, {}).is_ok());
  EXPECT_TRUE(fs::exists(tmp.file("m2.onnx.data")));
  auto r2 = onnx_io::load_model(path2);
  ASSERT_TRUE(r2.is_ok()) << r2.status().message();
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(r2.value()->graph->initializers()[i]->initializer()->same_contents(want[i])) << i;
}

TEST(ExternalData, MissingOrShortFileIsAClearError) {
  TempDir tmp;
  auto m = parse(kAddModel);
  ir::Rewriter rw(*m);
  rw.add_initializer(*m->graph, pattern_tensor(100000, 1), "big");
  onnx_io::SaveOptions opts;
  opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
  std::string path = tmp.file("m.onnx");
  ASSERT_TRUE(onnx_io::save_model(*m, path, opts).is_ok());
  // Short file.
  fs::resize_file(tmp.file("m.onnx.data"), 1000);
  auto r = onnx_io::load_model(path);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("too short"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("m.onnx"), std::string::npos);
  EXPECT_NE(r.status().message().find("'big'"), std::string::npos);
  // Missing file.
  fs::remove(tmp.file("m.onnx.data"));
  r = onnx_io::load_model(path);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("m.onnx.data"), std::string::npos) << r.status().message();
}

// A model whose weights pass 2 GB: saved with external data automatically, reloaded intact.
// The tensors live in anonymous mappings, so the test costs disk time, not memory.
TEST(ExternalData, ModelOverTwoGigabytesIsSavedWithExternalData) {
  TempDir tmp;
  auto m = parse(kAddModel);
  ir::Rewriter rw(*m);
  const size_t n = (1200ull << 20) / 4;  // 1.2 GB of float each, 2.4 GB in all
  for (int k = 0; k < 2; ++k) {
    auto buf = ir::MmapBuffer::anonymous(n * 4);
    float* p = reinterpret_cast<float*>(buf->mutable_data());
    p[0] = 1.0f + static_cast<float>(k);
    p[n / 2] = 2.0f;
    p[n - 1] = 3.0f + static_cast<float>(k);
    ir::Tensor t = ir::Tensor::shell(ir::DataType::kFloat, {static_cast<int64_t>(n)});
    t.set_buffer(buf, 0, n * 4);
    rw.add_initializer(*m->graph, std::move(t), "huge" + std::to_string(k));
  }
  std::string path = tmp.file("big.onnx");
  Status st = onnx_io::save_model(*m, path, {});
  ASSERT_TRUE(st.is_ok()) << st.message();
  EXPECT_LT(fs::file_size(path), 1u << 20);
  EXPECT_GE(fs::file_size(tmp.file("big.onnx.data")), 2 * n * 4);

  // A single file is refused, with a message that says why; nothing is left behind.
  onnx_io::SaveOptions never;
  never.external = onnx_io::SaveOptions::ExternalData::kNever;
  st = onnx_io::save_model(*m, tmp.file("single.onnx"), never);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("2 GB"), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp.file("single.onnx")));

  auto r = onnx_io::load_model(path);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& inits = r.value()->graph->initializers();
  ASSERT_EQ(inits.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const ir::Tensor& t = *inits[static_cast<size_t>(k)]->initializer();
    ASSERT_EQ(t.numel(), static_cast<int64_t>(n));
    EXPECT_TRUE(t.same_contents(*m->graph->initializers()[static_cast<size_t>(k)]->initializer()));
    EXPECT_EQ(t.data<float>()[0], 1.0f + static_cast<float>(k));
    EXPECT_EQ(t.data<float>()[n - 1], 3.0f + static_cast<float>(k));
  }
}

TEST(Load, ErrorsNameFileAndNode) {
  TempDir tmp;
  // Not ONNX at all.
  std::string bad = tmp.file("bad.onnx");
  std::ofstream(bad) << "this is not a model, just some text\n";
  auto r = onnx_io::load_model(bad);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kParse);
  EXPECT_NE(r.status().message().find("bad.onnx"), std::string::npos);
  // Missing.
  r = onnx_io::load_model(tmp.file("nope.onnx"));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kIo);
  EXPECT_NE(r.status().message().find("no such file"), std::string::npos);
  // Undefined value, with the node named.
  auto u = onnx_io::parse_text_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Add(x, ghost)
}
)");
  ASSERT_FALSE(u.is_ok());
  EXPECT_EQ(u.status().code(), ErrorCode::kInvalidModel);
  EXPECT_NE(u.status().message().find("'ghost'"), std::string::npos) << u.status().message();
  EXPECT_NE(u.status().message().find("Add"), std::string::npos) << u.status().message();
}

TEST(Load, CycleIsReportedWithANode) {
  auto r = onnx_io::parse_text_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  a = Add(x, b)
  b = Relu(a)
  y = Identity(b)
}
)");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("cycle"), std::string::npos) << r.status().message();
}

TEST(Load, OutOfOrderNodesAreSorted) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Relu(a)
  a = Neg(x)
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph->first_node()->op_type, "Neg");
  EXPECT_TRUE(ir::verify_model(*m).is_ok());
}

TEST(Save, UnwritableOutputLeavesNothingAndKeepsInput) {
  TempDir tmp;
  auto m = parse(kAddModel);
  Status st = onnx_io::save_model(*m, tmp.file("no/such/dir/out.onnx"), {});
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), ErrorCode::kIo);
  EXPECT_NE(st.message().find("out.onnx"), std::string::npos);
  size_t entries = 0;
  for (auto& e : fs::directory_iterator(tmp.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 0u);
}

TEST(Save, SavingOverTheInputReplacesItWhole) {
  TempDir tmp;
  auto m = parse(kAddModel);
  ir::Rewriter rw(*m);
  rw.add_initializer(*m->graph, pattern_tensor(50000, 1), "w");
  std::string path = tmp.file("m.onnx");
  ASSERT_TRUE(onnx_io::save_model(*m, path, {}).is_ok());
  auto r = onnx_io::load_model(path);
  ASSERT_TRUE(r.is_ok());
  // The loaded tensor's bytes point into the mapped input; saving over it must still work.
  ASSERT_TRUE(onnx_io::save_model(*r.value(), path, {}).is_ok());
  auto r2 = onnx_io::load_model(path);
  ASSERT_TRUE(r2.is_ok());
  EXPECT_TRUE(r2.value()->graph->initializers()[0]->initializer()->same_contents(pattern_tensor(50000, 1)));
}

// ---- --external-location: the model names that file, so it is held to the loader's rule
// (onnx_io::external_location_problem) before anything is read or written (issue 29).

// y = x + w with a 400 KB weight: written to external data under --external-data always.
const char* kWeightModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[100000] x) => (float[100000] y) {
  w = Constant<value = float {0}>()
  y = Add(x, w)
}
)";

// Writes kWeightModel to dir/in.onnx (one file, no external data) and returns its path.
std::string write_weight_model(const std::string& dir) {
  auto m = parse(kWeightModel);
  EXPECT_TRUE(m);
  if (!m) return "";
  test::set_weight(*m, "w", pattern_tensor(100000, 1));
  onnx_io::SaveOptions never;
  never.external = onnx_io::SaveOptions::ExternalData::kNever;
  std::string path = dir + "/in.onnx";
  EXPECT_TRUE(onnx_io::save_model(*m, path, never).is_ok());
  return path;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// Options::set (the CLI, the C API, Python) refuses `location` with exit 2, naming the option
// and the value.
void expect_set_refuses(const std::string& location) {
  try {
    Options().set("external-location", location);
    ADD_FAILURE() << "accepted: " << location;
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage) << e.what();
    EXPECT_NE(std::string(e.what()).find("--external-location"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + location + "'"), std::string::npos) << e.what();
  }
  onnxtrim_options* c = onnxtrim_options_new();
  EXPECT_EQ(onnxtrim_options_set(c, "external-location", location.c_str()), kExitUsage) << location;
  onnxtrim_options_free(c);
}

// simplify_file and Model::save with the location assigned directly (a C++ caller, past
// Options::set): exit 2 naming the option, and no output.
void expect_run_refuses(const std::string& in, const std::string& out, const std::string& location) {
  Options o;
  o.external_data = "always";
  o.external_location = location;
  try {
    simplify_file(in, out, o);
    ADD_FAILURE() << "accepted: " << location;
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage) << e.what();
    EXPECT_NE(std::string(e.what()).find("--external-location"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(location), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(out)) << location;
  // Model::save checks the same way.
  Model m = Model::load(in);
  EXPECT_THROW(m.save(out, o), Error) << location;
  EXPECT_FALSE(fs::exists(out)) << location;
}

TEST(ExternalLocation, AbsolutePathIsRefusedBeforeAnythingIsWritten) {
  TempDir tmp, elsewhere;
  std::string in = write_weight_model(tmp.path());
  std::string abs = elsewhere.file("w.data");
  ASSERT_TRUE(fs::path(abs).is_absolute());
  expect_set_refuses(abs);
  expect_run_refuses(in, tmp.file("out.onnx"), abs);
  EXPECT_EQ(files_in(tmp.path()), std::vector<std::string>{"in.onnx"});
  EXPECT_TRUE(files_in(elsewhere.path()).empty());
}

TEST(ExternalLocation, ParentFolderIsRefused) {
  TempDir tmp;
  std::string in = write_weight_model(tmp.path());
  fs::create_directory(tmp.file("sub"));
  // Both would land in tmp/x.data, beside in.onnx.
  for (std::string location : {"../x.data", "a/../../x.data"}) {
    expect_set_refuses(location);
    expect_run_refuses(in, tmp.file("sub/out.onnx"), location);
  }
  EXPECT_EQ(files_in(tmp.path()), (std::vector<std::string>{"in.onnx", "sub"}));
}

TEST(ExternalLocation, NamesThatAreNoFileOrTheModelItselfAreRefused) {
  TempDir tmp;
  std::string in = write_weight_model(tmp.path());
  // Empty: no value at all.
  EXPECT_THROW(Options().set("external-location", ""), Error);
  for (std::string location : {".", "data/", "a/.."}) {
    expect_set_refuses(location);
    expect_run_refuses(in, tmp.file("out.onnx"), location);
  }
  // The output model's own name: the data and the model would overwrite each other.
  expect_run_refuses(in, tmp.file("out.onnx"), "out.onnx");
  expect_run_refuses(in, tmp.file("out.onnx"), "./out.onnx");
  EXPECT_EQ(files_in(tmp.path()), std::vector<std::string>{"in.onnx"});
}

TEST(ExternalLocation, PlainNameIsWrittenAndLoadsBack) {
  TempDir tmp;
  std::string in = write_weight_model(tmp.path());
  Options o;
  o.set("external-data", "always");
  o.set("external-location", "w.data");
  std::string out = tmp.file("out.onnx");
  simplify_file(in, out, o);
  ASSERT_TRUE(fs::exists(tmp.file("w.data")));
  auto r = onnx_io::load_model(out);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& inits = r.value()->graph->initializers();
  ASSERT_EQ(inits.size(), 1u);
  EXPECT_EQ(inits[0]->initializer()->external.location, "w.data");
  EXPECT_TRUE(inits[0]->initializer()->same_contents(pattern_tensor(100000, 1)));
  EXPECT_NO_THROW({
    Model back = Model::load(out);
    (void)back;
  });  // the public API loads it too
}

TEST(ExternalLocation, SubfolderThatExistsIsWrittenAndLoadsBack) {
  TempDir tmp;
  std::string in = write_weight_model(tmp.path());
  Options o;
  o.set("external-data", "always");
  o.set("external-location", "weights/w.data");
  std::string out = tmp.file("out.onnx");
  // onnxtrim creates no folders: a missing one is an I/O error before anything is written.
  try {
    simplify_file(in, out, o);
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitIo) << e.what();
    EXPECT_NE(std::string(e.what()).find("--external-location"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files_in(tmp.path()), std::vector<std::string>{"in.onnx"});

  fs::create_directory(tmp.file("weights"));
  simplify_file(in, out, o);
  ASSERT_TRUE(fs::exists(tmp.file("weights/w.data")));
  auto r = onnx_io::load_model(out);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& inits = r.value()->graph->initializers();
  ASSERT_EQ(inits.size(), 1u);
  EXPECT_EQ(inits[0]->initializer()->external.location, "weights/w.data");
  EXPECT_TRUE(inits[0]->initializer()->same_contents(pattern_tensor(100000, 1)));
}

// One rule for the writer and the loader: onnx_io refuses to write what it would refuse to read,
// and reads what it writes.
TEST(ExternalLocation, WriterAndLoaderShareOneRule) {
  for (const char* ok : {"w.data", "weights/w.data", "./w.data", "w..data", "m.onnx.data"})
    EXPECT_EQ(onnx_io::external_location_problem(ok, "out/m.onnx"), "") << ok;
  for (const char* bad :
       {"", "/abs/w.data", "../w.data", "a/../../w.data", "a/../w.data", "..", ".", "data/", "m.onnx", "./m.onnx"})
    EXPECT_NE(onnx_io::external_location_problem(bad, "out/m.onnx"), "") << bad;

  TempDir tmp;
  auto m = parse(kAddModel);
  ir::Rewriter rw(*m);
  rw.add_initializer(*m->graph, pattern_tensor(100000, 1), "big");
  onnx_io::SaveOptions opts;
  opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
  opts.location = "../w.data";
  Status st = onnx_io::save_model(*m, tmp.file("m.onnx"), opts);
  EXPECT_EQ(st.code(), ErrorCode::kUsage) << st.message();
  EXPECT_TRUE(files_in(tmp.path()).empty());
  // A name with ".." inside a file name stays in the folder: written and read back.
  opts.location = "w..data";
  ASSERT_TRUE(onnx_io::save_model(*m, tmp.file("m.onnx"), opts).is_ok());
  auto r = onnx_io::load_model(tmp.file("m.onnx"));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_TRUE(r.value()->graph->initializers()[0]->initializer()->same_contents(pattern_tensor(100000, 1)));
}

}  // namespace
}  // namespace onnxtrim
