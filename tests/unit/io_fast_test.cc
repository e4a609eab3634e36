// Loading and saving without copying weights: the fast loader (raw_data read in place from the
// mapped file) against the general libprotobuf parser, kernel-side copies on save, the scratch
// file that folded weights are written into, and the release of file-backed pages.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/rewriter.h"
#include "ir/mapped.h"
#include "ir/scratch.h"
#include "onnx_io/onnx_io.h"
#include "passes/pass_manager.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// A protobuf writer for hand-made files (field by field, so that every encoding can be made).
struct Wire {
  std::string s;
  Wire& varint(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      s.push_back(static_cast<char>(b | (v ? 0x80 : 0)));
    } while (v);
    return *this;
  }
  Wire& tag(uint32_t field, int wt) { return varint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wt)); }
  Wire& num(uint32_t field, uint64_t v) { return tag(field, 0).varint(v); }
  Wire& bytes(uint32_t field, std::string_view b) {
    tag(field, 2).varint(b.size());
    s.append(b);
    return *this;
  }
  Wire& fixed32(uint32_t field, uint32_t v) {
    tag(field, 5);
    s.append(reinterpret_cast<const char*>(&v), 4);
    return *this;
  }
};

std::string floats_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

// TensorProto: float, the given dims, raw_data.
std::string raw_tensor(const std::string& name, const std::vector<int64_t>& dims, const std::string& raw,
                       int dtype = 1) {
  Wire t;
  for (int64_t d : dims) t.num(1, static_cast<uint64_t>(d));
  t.num(2, static_cast<uint64_t>(dtype));
  t.bytes(8, name);
  t.bytes(9, raw);
  return t.s;
}

// ModelProto: y = Identity(x), with the given TensorProtos as initializers of the graph.
std::string model_bytes(const std::vector<std::string>& tensors, const std::string& graph_extra = "") {
  Wire type;  // TypeProto { tensor_type { elem_type: FLOAT } }
  type.bytes(1, Wire().num(1, 1).s);
  Wire g;  // in the order onnxtrim writes the fields (initializers last)
  g.bytes(1, Wire().bytes(1, "x").bytes(2, "y").bytes(4, "Identity").s);
  g.bytes(2, "g");
  g.bytes(11, Wire().bytes(1, "x").bytes(2, type.s).s);
  g.bytes(12, Wire().bytes(1, "y").bytes(2, type.s).s);
  g.s += graph_extra;
  for (const auto& t : tensors) g.bytes(5, t);
  Wire m;
  m.num(1, 8);
  m.bytes(8, Wire().bytes(1, "").num(2, 17).s);
  m.bytes(7, g.s);
  return m.s;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Both parsers on the same bytes: the same model (as serialized) or the same error.
void expect_same_result(const std::string& bytes, const std::string& what) {
  onnx_io::LoadOptions fast, general;
  fast.load_external_data = general.load_external_data = false;
  general.general_parser = true;
  auto a = onnx_io::parse_model(bytes, "m.onnx", "/nonexistent", fast);
  auto b = onnx_io::parse_model(bytes, "m.onnx", "/nonexistent", general);
  ASSERT_EQ(a.is_ok(), b.is_ok()) << what << ": " << (a ? b.status().message() : a.status().message());
  if (!a) {
    EXPECT_EQ(a.status().message(), b.status().message()) << what;
    EXPECT_EQ(a.status().code(), b.status().code()) << what;
    return;
  }
  // Initializers as read: names, types, encodings, external references.
  const auto& ia = a.value()->graph->initializers();
  const auto& ib = b.value()->graph->initializers();
  ASSERT_EQ(ia.size(), ib.size()) << what;
  for (size_t i = 0; i < ia.size(); ++i) {
    const ir::Tensor& ta = *ia[i]->initializer();
    const ir::Tensor& tb = *ib[i]->initializer();
    EXPECT_EQ(ia[i]->name(), ib[i]->name()) << what;
    EXPECT_EQ(ta.dtype(), tb.dtype()) << what;
    EXPECT_EQ(ta.dims(), tb.dims()) << what;
    EXPECT_EQ(ta.presence, tb.presence) << what;
    EXPECT_EQ(ta.typed_encoding, tb.typed_encoding) << what;
    EXPECT_EQ(ta.extra, tb.extra) << what;
    EXPECT_EQ(ta.external.location, tb.external.location) << what;
    EXPECT_EQ(ta.external.offset, tb.external.offset) << what;
    EXPECT_EQ(ta.external.length, tb.external.length) << what;
  }
  // And the whole model as it would be written; a model whose external data was not read
  // cannot be written: then both say so in the same words.
  auto sa = onnx_io::serialize_model(*a.value());
  auto sb = onnx_io::serialize_model(*b.value());
  ASSERT_EQ(sa.is_ok(), sb.is_ok()) << what;
  if (sa.is_ok()) EXPECT_EQ(sa.value(), sb.value()) << what;
  else EXPECT_EQ(sa.status().message(), sb.status().message()) << what;
}

TEST(FastLoad, RawDataStaysInTheMappedFile) {
  TempDir tmp;
  std::vector<float> v(1 << 18);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.25f;
  std::string raw = floats_bytes(v);
  std::string bytes = model_bytes({raw_tensor("w", {static_cast<int64_t>(v.size())}, raw)});
  std::string path = tmp.file("m.onnx");
  write_file(path, bytes);
  auto r = onnx_io::load_model(path);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const ir::Tensor& t = *r.value()->graph->find_value("w")->initializer();
  ASSERT_EQ(t.numel(), static_cast<int64_t>(v.size()));
  EXPECT_EQ(std::memcmp(t.bytes(), v.data(), raw.size()), 0);
  ir::FileRef ref = ir::file_ref(t);
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref.file->path, path);
  EXPECT_EQ(ref.offset, bytes.find(raw));
  // A model parsed from memory owns its tensors (nothing points into the caller's bytes).
  auto m = onnx_io::parse_model(bytes, "m.onnx", tmp.path());
  ASSERT_TRUE(m.is_ok());
  EXPECT_FALSE(ir::file_ref(*m.value()->graph->find_value("w")->initializer()));
}

TEST(FastLoad, MisalignedRawDataIsReadFromAlignedMemory) {
  TempDir tmp;
  std::vector<float> v = {1.5f, -2.0f, 3.25f, 1e-3f, 7.0f, 8.0f, 9.0f, 10.0f};
  std::string raw = floats_bytes(v);
  for (int pad = 0; pad < 4; ++pad) {
    std::string bytes = model_bytes({raw_tensor(std::string(static_cast<size_t>(pad) + 1, 'w'), {8}, raw)});
    std::string path = tmp.file("m" + std::to_string(pad) + ".onnx");
    write_file(path, bytes);
    auto r = onnx_io::load_model(path);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    const ir::Tensor& t = *r.value()->graph->initializers()[0]->initializer();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.bytes()) % 4, 0u) << "pad " << pad;
    EXPECT_EQ(t.to_vector<float>(), v);
    ir::FileRef ref = ir::file_ref(t);
    ASSERT_TRUE(ref);  // still copied from the file on save
    EXPECT_EQ(ref.offset, bytes.find(raw));
  }
}

TEST(FastLoad, AgreesWithTheGeneralParserOnEveryEncoding) {
  std::vector<float> v = {1, 2, 3, 4};
  std::string raw = floats_bytes(v);
  Wire typed;  // float_data, packed
  typed.num(1, 4).num(2, 1).bytes(8, "typed");
  typed.bytes(4, raw);
  Wire unpacked;  // float_data unpacked, dims packed
  unpacked.bytes(1, Wire().varint(2).varint(2).s).num(2, 1).bytes(8, "unpacked");
  for (float f : v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    unpacked.fixed32(4, bits);
  }
  Wire int8s;  // int32_data for INT8
  int8s.num(1, 3)
      .num(2, 3)
      .bytes(8, "int8s")
      .bytes(5, Wire().varint(1).varint(static_cast<uint64_t>(-2)).varint(127).s);
  Wire strings;
  strings.num(1, 2).num(2, 8).bytes(8, "strings").bytes(6, "ab").bytes(6, "");
  Wire doc;
  doc.s = raw_tensor("doc", {4}, raw);
  doc.bytes(12, "a doc string");
  Wire unknown;
  unknown.s = raw_tensor("unknown", {4}, raw);
  unknown.num(99, 5).bytes(98, "kept");
  Wire packed_dims;
  packed_dims.bytes(1, Wire().varint(2).varint(2).s).num(2, 1).bytes(8, "packed").bytes(9, raw);
  Wire location0;
  location0.s = raw_tensor("loc0", {4}, raw);
  location0.num(14, 0);
  Wire twice;  // later fields win
  twice.s = raw_tensor("first", {4}, floats_bytes({9, 9, 9, 9}));
  twice.bytes(8, "second").bytes(9, raw);
  Wire external;
  external.num(1, 4).num(2, 1).bytes(8, "ext");
  external.bytes(13, Wire().bytes(1, "location").bytes(2, "w.bin").s);
  external.bytes(13, Wire().bytes(1, "offset").bytes(2, "64").s);
  external.bytes(13, Wire().bytes(1, "basepath").bytes(2, "x").s);
  external.num(14, 1);
  Wire location5;  // an enum value this build does not know: an unknown field
  location5.s = raw_tensor("loc5", {4}, raw);
  location5.num(14, 5);
  Wire empty;
  empty.num(1, 0).num(2, 1).bytes(8, "empty").bytes(9, "");
  Wire no_data;
  no_data.num(1, 0).num(2, 1).bytes(8, "nodata");
  Wire segment;
  segment.s = raw_tensor("segment", {4}, raw);
  segment.bytes(3, Wire().num(1, 0).num(2, 4).s);
  Wire bf16;
  bf16.s = raw_tensor("bf16", {2}, std::string("\x01\x02\x03\x04", 4), 16);
  Wire int4;
  int4.s = raw_tensor("int4", {3}, std::string("\x21\x03", 2), 22);
  Wire no_type;
  no_type.bytes(8, "notype").bytes(9, "");

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"raw", raw_tensor("raw", {4}, raw)},
      {"typed", typed.s},
      {"unpacked", unpacked.s},
      {"int8s", int8s.s},
      {"strings", strings.s},
      {"doc", doc.s},
      {"unknown", unknown.s},
      {"packed dims", packed_dims.s},
      {"location 0", location0.s},
      {"twice", twice.s},
      {"external", external.s},
      {"location 5", location5.s},
      {"empty", empty.s},
      {"no data", no_data.s},
      {"segment", segment.s},
      {"bfloat16", bf16.s},
      {"int4", int4.s},
      {"no type", no_type.s},
      // errors: the same message either way
      {"short raw", raw_tensor("short", {5}, raw)},
      {"negative dim", raw_tensor("neg", {static_cast<int64_t>(-1)}, raw)},
      {"unknown dtype", raw_tensor("bad", {4}, raw, 77)},
      {"huge dims", raw_tensor("huge", {1ll << 40, 1ll << 40}, raw)},
  };
  for (const auto& [what, t] : cases) expect_same_result(model_bytes({t}), what);
  // All at once, in one graph.
  std::vector<std::string> all;
  for (size_t i = 0; i < 18; ++i) all.push_back(cases[i].second);
  expect_same_result(model_bytes(all), "all");
  // Graph and model framing the fast path leaves to the general parser.
  expect_same_result(model_bytes({raw_tensor("w", {4}, raw)}, Wire().num(77, 1).bytes(76, "x").s),
                     "unknown graph fields");
  expect_same_result(model_bytes({raw_tensor("w", {4}, raw), raw_tensor("w", {4}, raw)}), "twice defined");
  std::string m = model_bytes({raw_tensor("w", {4}, raw)});
  expect_same_result(m + Wire().bytes(7, Wire().bytes(2, "merged").s).s, "two graph fields");
  expect_same_result(m + Wire().tag(20, 3).s, "a group");
  expect_same_result(m.substr(0, m.size() - 3), "truncated");
  expect_same_result(m + Wire().num(100, 3).fixed32(101, 7).s, "unknown model fields");
}

TEST(FastLoad, AgreesWithTheGeneralParserOnBackendModels) {
  std::vector<std::string> models;
  for (const auto& e : fs::recursive_directory_iterator(test::data_dir()))
    if (e.path().extension() == ".onnx") models.push_back(e.path().string());
  ASSERT_GT(models.size(), 1000u);
  onnx_io::LoadOptions general;
  general.general_parser = true;
  size_t compared = 0;
  for (const auto& path : models) {
    auto a = onnx_io::load_model(path);
    auto b = onnx_io::load_model(path, general);
    ASSERT_EQ(a.is_ok(), b.is_ok()) << path;
    if (!a) {
      EXPECT_EQ(a.status().message(), b.status().message()) << path;
      continue;
    }
    auto sa = onnx_io::serialize_model(*a.value());
    auto sb = onnx_io::serialize_model(*b.value());
    ASSERT_TRUE(sa.is_ok() && sb.is_ok()) << path;
    EXPECT_EQ(sa.value(), sb.value()) << path;
    ++compared;
  }
  EXPECT_EQ(compared, models.size());
}

TEST(FastSave, UnchangedTensorsAreCopiedFromTheirFiles) {
  TempDir tmp;
  std::vector<float> v(1 << 18);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 977) - 3.0f;
  std::string raw = floats_bytes(v);
  std::string in = tmp.file("in.onnx");
  write_file(in, model_bytes({raw_tensor("w", {static_cast<int64_t>(v.size())}, raw),
                              raw_tensor("small", {4}, raw.substr(0, 16))}));
  auto r = onnx_io::load_model(in);
  ASSERT_TRUE(r.is_ok());
  // Inline, and as external data.
  ASSERT_TRUE(onnx_io::save_model(*r.value(), tmp.file("out.onnx")).is_ok());
  onnx_io::SaveOptions always;
  always.external = onnx_io::SaveOptions::ExternalData::kAlways;
  ASSERT_TRUE(onnx_io::save_model(*r.value(), tmp.file("ext.onnx"), always).is_ok());
  EXPECT_EQ(read_file(tmp.file("out.onnx")), read_file(in));  // the writer's layout is the reader's
  EXPECT_EQ(read_file(tmp.file("ext.onnx.data")), raw);
  auto back = onnx_io::load_model(tmp.file("ext.onnx"));
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back.value()->graph->find_value("w")->initializer()->to_vector<float>(), v);

  // The input replaced on disk after loading (same name, another file): the bytes still come
  // from the file that was read, not from the new one.
  std::string other = tmp.file("other.onnx");
  write_file(other, model_bytes({raw_tensor("w", {static_cast<int64_t>(v.size())}, std::string(raw.size(), '\0'))}));
  fs::rename(other, in);
  ASSERT_TRUE(onnx_io::save_model(*r.value(), tmp.file("again.onnx")).is_ok());
  EXPECT_EQ(read_file(tmp.file("again.onnx")), read_file(tmp.file("out.onnx")));
}

// A model whose graph holds `nodes` Identity nodes and whose initializers come first in the
// graph, before the nodes (the writer puts them after): their bytes move in the output.
std::string many_nodes_model(const std::vector<std::string>& tensors, int nodes, const std::string& model_tail = "") {
  Wire type;
  type.bytes(1, Wire().num(1, 1).s);
  Wire g;
  for (const auto& t : tensors) g.bytes(5, t);
  for (int i = 0; i < nodes; ++i)
    g.bytes(1, Wire()
                   .bytes(1, i == 0 ? std::string("x") : "v" + std::to_string(i - 1))
                   .bytes(2, i + 1 == nodes ? std::string("y") : "v" + std::to_string(i))
                   .bytes(3, "node_" + std::to_string(i))
                   .bytes(4, "Identity")
                   .s);
  g.bytes(2, "g");
  g.bytes(11, Wire().bytes(1, "x").bytes(2, type.s).s);
  g.bytes(12, Wire().bytes(1, "y").bytes(2, type.s).s);
  Wire m;
  m.num(1, 8);
  m.bytes(8, Wire().bytes(1, "").num(2, 17).s);
  m.bytes(7, g.s);
  m.s += model_tail;
  return m.s;
}

// The model as read by libprotobuf alone, written to memory (the canonical form).
std::string canonical(const std::string& path) {
  onnx_io::LoadOptions general;
  general.general_parser = true;
  auto r = onnx_io::load_model(path, general);
  EXPECT_TRUE(r.is_ok()) << path << ": " << r.status().message();
  if (!r.is_ok()) return {};
  auto s = onnx_io::serialize_model(*r.value());
  EXPECT_TRUE(s.is_ok());
  return s.is_ok() ? s.value() : std::string();
}

TEST(FastSave, LargeTensorsLandAtTheirSourcesPlaceWithinAPage) {
  TempDir tmp;
  std::vector<std::string> raws;
  std::vector<std::string> tensors;
  for (int k = 0; k < 3; ++k) {
    std::vector<float> v(static_cast<size_t>(1 << 16) + static_cast<size_t>(k) * 1031);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7 + static_cast<size_t>(k)) % 1009) - 5.0f;
    raws.push_back(floats_bytes(v));
    tensors.push_back(raw_tensor("w" + std::to_string(k) + std::string(static_cast<size_t>(k) * 3, 'x'),
                                 {static_cast<int64_t>(v.size())}, raws.back()));
  }
  tensors.push_back(raw_tensor("small", {4}, raws[0].substr(0, 16)));
  std::string in = tmp.file("in.onnx");
  // The model's doc string, after the graph in the source, goes before it in the output.
  const std::string bytes = many_nodes_model(tensors, 400, Wire().bytes(6, std::string(1000, 'd')).s);
  write_file(in, bytes);
  auto r = onnx_io::load_model(in);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  std::string out = tmp.file("out.onnx");
  ASSERT_TRUE(onnx_io::save_model(*r.value(), out).is_ok());
  const std::string saved = read_file(out);
  for (int k = 0; k < 3; ++k) {
    size_t src = bytes.find(raws[static_cast<size_t>(k)]), dst = saved.find(raws[static_cast<size_t>(k)]);
    ASSERT_NE(dst, std::string::npos);
    EXPECT_NE(src, dst) << "tensor " << k << " did not move: the test shows nothing";
    EXPECT_EQ(src % 4096, dst % 4096) << "tensor " << k;
  }
  // The same model for libprotobuf (wider lengths, records between the initializers), for the
  // fast reader, and written in memory in the plain layout.
  EXPECT_EQ(canonical(out), canonical(in));
  auto again = onnx_io::load_model(out);
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  auto mem = onnx_io::serialize_model(*again.value());
  ASSERT_TRUE(mem.is_ok());
  EXPECT_EQ(mem.value(), canonical(in));
  EXPECT_LT(saved.size(), bytes.size() + 3 * 4096);
  // Saved again from the output: the tensors are where their source has them, so nothing moves.
  std::string out2 = tmp.file("out2.onnx");
  ASSERT_TRUE(onnx_io::save_model(*again.value(), out2).is_ok());
  EXPECT_EQ(read_file(out2), saved);
}

TEST(FastSave, TensorsFromMemoryStartAPage) {
  TempDir tmp;
  std::string in = tmp.file("in.onnx");
  std::vector<float> v(1 << 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 613);
  write_file(in, many_nodes_model({raw_tensor("w", {static_cast<int64_t>(v.size())}, floats_bytes(v))}, 300));
  auto r = onnx_io::parse_model(read_file(in), "in.onnx", tmp.path());  // owns its bytes
  ASSERT_TRUE(r.is_ok());
  ASSERT_FALSE(ir::file_ref(*r.value()->graph->find_value("w")->initializer()));
  std::string out = tmp.file("out.onnx");
  ASSERT_TRUE(onnx_io::save_model(*r.value(), out).is_ok());
  const std::string saved = read_file(out);
  EXPECT_EQ(saved.find(floats_bytes(v)) % 4096, 0u);
  EXPECT_EQ(canonical(out), canonical(in));
}

TEST(FastSave, ATensorWithTooFewRecordsBeforeItIsWrittenWhereItFalls) {
  // One node: nothing to fill a gap with but a few wider lengths; the tensor is written where
  // it falls, with nothing added to the file. (The model's doc string, after the graph in the
  // source, goes before it in the output: the tensor moves by about 1,000 bytes.)
  TempDir tmp;
  std::vector<float> v(1 << 16, 0.5f);
  v[3] = 2.0f;
  std::string in = tmp.file("in.onnx");
  write_file(in, many_nodes_model({raw_tensor("w", {static_cast<int64_t>(v.size())}, floats_bytes(v))}, 1,
                                  Wire().bytes(6, std::string(1000, 'd')).s));
  auto r = onnx_io::load_model(in);
  ASSERT_TRUE(r.is_ok());
  std::string out = tmp.file("out.onnx");
  ASSERT_TRUE(onnx_io::save_model(*r.value(), out).is_ok());
  auto mem = onnx_io::serialize_model(*r.value());
  ASSERT_TRUE(mem.is_ok());
  EXPECT_EQ(read_file(out).size(), mem.value().size());
  EXPECT_NE(read_file(out).find(floats_bytes(v)) % 4096, read_file(in).find(floats_bytes(v)) % 4096);
  EXPECT_EQ(canonical(out), canonical(in));
}

// Folded transposes (deferred tensors) in the model file itself are made and written at their
// places by the makers while the writer writes the rest around them: every element lands
// where it belongs, for sizes that are not whole pieces or whole 8 x 8 blocks, and the file
// holds what the in-memory serialization holds.
TEST(FastSave, FoldedTransposesAreWrittenAtTheirPlacesInTheFile) {
  TempDir tmp;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{300, 1000}, {513, 700}, {256, 256}, {1031, 517}};
  std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float s) => (";
  std::string body;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::string n = std::to_string(k);
    text += std::string(k ? ", " : "") + "float[" + std::to_string(shapes[k].second) + ", " +
            std::to_string(shapes[k].first) + "] u" + n;
    body += "  w" + n + " = Constant <value = float[1] {0.0}> ()\n  t" + n + " = Transpose(w" + n + ")\n  u" + n +
            " = Add(t" + n + ", s)\n";
  }
  text += ") {\n" + body + "}\n";
  auto m = onnx_io::parse_text_model(text);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  for (size_t k = 0; k < shapes.size(); ++k) {
    const auto [rows, cols] = shapes[k];
    std::vector<float> v(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7 + k) % 10007);
    test::set_weight(*m.value(), "w" + std::to_string(k),
                     ir::Tensor::from_vector(ir::DataType::kFloat, {rows, cols}, v));
  }
  std::string in = tmp.file("in.onnx");
  ASSERT_TRUE(onnx_io::save_model(*m.value(), in).is_ok());
  auto r = onnx_io::load_model(in);
  ASSERT_TRUE(r.is_ok());
  passes::SimplifyOptions o;
  o.only = {"fold_constants"};
  ASSERT_TRUE(passes::simplify(*r.value(), o).is_ok());
  size_t deferred = 0;
  for (const ir::Value* v : r.value()->graph->initializers()) deferred += v->initializer()->deferred();
  ASSERT_GE(deferred, shapes.size());  // the transposes, folded, not made yet
  std::string out = tmp.file("out.onnx");
  ASSERT_TRUE(onnx_io::save_model(*r.value(), out).is_ok());
  auto back = onnx_io::load_model(out);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  for (size_t k = 0; k < shapes.size(); ++k) {
    const auto [rows, cols] = shapes[k];
    const ir::Value* t = back.value()->graph->find_value("t" + std::to_string(k));
    ASSERT_TRUE(t && t->initializer()) << k;
    ASSERT_EQ(t->initializer()->dims(), (std::vector<int64_t>{cols, rows}));
    const uint8_t* p = t->initializer()->unaligned_bytes();
    size_t wrong = 0;
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < rows; ++j) {
        float got = 0;
        std::memcpy(&got, p + 4 * static_cast<size_t>(i * rows + j), 4);
        wrong += got != static_cast<float>((static_cast<size_t>(j * cols + i) * 7 + k) % 10007);
      }
    EXPECT_EQ(wrong, 0u) << "t" << k;
  }
  auto mem = onnx_io::serialize_model(*r.value());
  ASSERT_TRUE(mem.is_ok());
  std::string mem_file = tmp.file("mem.onnx");
  write_file(mem_file, mem.value());
  EXPECT_EQ(canonical(out), canonical(mem_file));
}

// A piece the makers cannot write (here: past the largest file this process may write) fails
// the save with the reason, and leaves no file behind: neither the model nor its data.
TEST(FastSave, APieceTheMakersCannotWriteFailsTheSave) {
  TempDir tmp;
  auto m = onnx_io::parse_text_model(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float s) => (float[2048, 1024] u) {
  w = Constant <value = float[1] {0.0}> ()
  t = Transpose(w)
  u = Add(t, s)
}
)");
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  std::vector<float> v(2048 * 1024);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1009);
  test::set_weight(*m.value(), "w", ir::Tensor::from_vector(ir::DataType::kFloat, {1024, 2048}, v));
  std::string in = tmp.file("in.onnx");
  ASSERT_TRUE(onnx_io::save_model(*m.value(), in).is_ok());
  auto r = onnx_io::load_model(in);
  ASSERT_TRUE(r.is_ok());
  passes::SimplifyOptions o;
  o.only = {"fold_constants", "eliminate_unused_initializers"};  // w goes: t alone is stored
  ASSERT_TRUE(passes::simplify(*r.value(), o).is_ok());
  ASSERT_TRUE(r.value()->graph->find_value("t")->initializer()->deferred());
  // 8 MB of transposed weight in the external-data file, where the writer writes nothing of
  // its own, and files of at most 1 MB: the model file fits, the makers' pieces do not.
  onnx_io::SaveOptions opts;
  opts.external = onnx_io::SaveOptions::ExternalData::kAlways;
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 1 << 20;
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string out = tmp.file("out.onnx");
  Status st = onnx_io::save_model(*r.value(), out, opts);
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find(std::strerror(EFBIG)), std::string::npos) << st.message();
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".data"));
  size_t left = 0;
  for (const auto& e : fs::directory_iterator(tmp.path()))
    left += e.path().filename().string().rfind(".out.onnx", 0) == 0;
  EXPECT_EQ(left, 0u);  // no temporary file either
}

// Duplicate weights of a mapped model are found with their sample windows read from the file
// (not through the mapping): equal ones merge, one that differs only outside the windows does
// not, and a file replaced on disk after loading is not read in place of the mapped one.
TEST(FastLoad, DuplicateWeightsOfAMappedModelAreSampledFromTheFile) {
  TempDir tmp;
  std::vector<float> v(1 << 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1013) * 0.5f;
  std::vector<float> other = v;
  other[12345] += 1.0f;  // between two sampled windows
  const std::string in = tmp.file("in.onnx");
  auto write_model = [&](const std::string& path) {
    write_file(path, model_bytes({raw_tensor("a", {static_cast<int64_t>(v.size())}, floats_bytes(v)),
                                  raw_tensor("b", {static_cast<int64_t>(v.size())}, floats_bytes(v)),
                                  raw_tensor("c", {static_cast<int64_t>(v.size())}, floats_bytes(other))}));
  };
  write_model(in);
  passes::SimplifyOptions o;
  o.only = {"eliminate_duplicate_constants"};
  o.verify_ir = true;
  for (bool replaced : {false, true}) {
    auto r = onnx_io::load_model(in);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    ASSERT_TRUE(ir::file_ref(*r.value()->graph->find_value("a")->initializer()));
    if (replaced) {  // the same name, another file, where a and b differ: read, they would not merge
      std::string other_path = tmp.file("other.onnx");
      write_file(other_path,
                 model_bytes({raw_tensor("a", {static_cast<int64_t>(v.size())}, std::string(v.size() * 4, '\0')),
                              raw_tensor("b", {static_cast<int64_t>(v.size())}, std::string(v.size() * 4, '\1')),
                              raw_tensor("c", {static_cast<int64_t>(v.size())}, std::string(v.size() * 4, '\0'))}));
      fs::rename(other_path, in);
    }
    ASSERT_TRUE(passes::simplify(*r.value(), o).is_ok());
    std::vector<std::string> names;
    for (const ir::Value* x : r.value()->graph->initializers()) names.push_back(x->name());
    EXPECT_EQ(names, (std::vector<std::string>{"a", "c"})) << (replaced ? "file replaced" : "file in place");
    EXPECT_EQ(r.value()->graph->find_value("c")->initializer()->to_vector<float>(), other);
    if (replaced) write_model(in);
  }
}

TEST(Scratch, LargeTensorsOfAScopeLiveInTheScratchFile) {
  uint64_t before = ir::scratch::bytes_in_use();
  {
    ir::ScratchScope scope(1 << 20);
    ir::Tensor big(ir::DataType::kFloat, {1 << 19});  // 2 MB
    ir::Tensor small(ir::DataType::kFloat, {16});
    ASSERT_TRUE(ir::file_ref(big));
    EXPECT_FALSE(ir::file_ref(small));
    EXPECT_GE(ir::scratch::bytes_in_use(), before + (2u << 20));
    const float* zeros = big.data<float>();
    EXPECT_EQ(zeros[0], 0.0f);
    EXPECT_EQ(zeros[(1 << 19) - 1], 0.0f);
    float* p = big.mutable_data<float>();
    EXPECT_EQ(p, zeros);  // the only owner writes in place
    for (int i = 0; i < (1 << 19); ++i) p[i] = static_cast<float>(i);
    ir::release_pages(big);  // the pages leave memory, the values stay in the file
    EXPECT_EQ(big.data<float>()[12345], 12345.0f);
    ir::Tensor shared = big;
    EXPECT_NE(shared.mutable_data<float>(), big.data<float>());  // copy on write
    EXPECT_EQ(shared.data<float>()[777], 777.0f);
  }
  ir::Tensor after(ir::DataType::kFloat, {1 << 19});  // outside any scope: the heap
  EXPECT_FALSE(ir::file_ref(after));
  EXPECT_EQ(ir::scratch::bytes_in_use(), before);
}

TEST(Scratch, FoldedWeightsAreWrittenToScratchAndSavedFromIt) {
  TempDir tmp;
  // 17 MB: past the threshold of the heap (16 MB while few bytes were folded into it), and
  // past the size at which a transpose goes band by band over threads.
  const int64_t R = 1024, C = 4200;
  std::vector<float> w(static_cast<size_t>(R * C));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 1013) * 0.5f;
  Wire tw;  // Transpose(w) -> wt; y = MatMul(x, wt)
  std::string type;
  {
    Wire shape;
    shape.bytes(1, Wire().bytes(2, "N").s).bytes(1, Wire().num(1, static_cast<uint64_t>(R)).s);
    type = Wire().bytes(1, Wire().num(1, 1).bytes(2, shape.s).s).s;
  }
  std::string out_type = Wire().bytes(1, Wire().num(1, 1).s).s;
  Wire g;
  g.bytes(1, Wire().bytes(1, "w").bytes(2, "wt").bytes(4, "Transpose").s);
  g.bytes(1, Wire().bytes(1, "x").bytes(1, "wt").bytes(2, "y").bytes(4, "MatMul").s);
  g.bytes(5, raw_tensor("w", {C, R}, floats_bytes(w)));
  g.bytes(11, Wire().bytes(1, "x").bytes(2, type).s);
  g.bytes(12, Wire().bytes(1, "y").bytes(2, out_type).s);
  Wire m;
  m.num(1, 8).bytes(8, Wire().bytes(1, "").num(2, 17).s).bytes(7, g.s);
  std::string in = tmp.file("in.onnx");
  write_file(in, m.s);
  auto r = onnx_io::load_model(in);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ir::Model& model = *r.value();
  ir::scratch::set_directory(tmp.path());
  passes::SimplifyOptions so;
  auto res = passes::simplify(model, so);
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  const ir::Value* wt = model.graph->find_value("wt");
  ASSERT_NE(wt, nullptr);
  ASSERT_TRUE(wt->is_initializer());
  const ir::Tensor& t = *wt->initializer();
  // Folded, the transpose is a recipe (nothing of it in the heap), saved a piece at a time.
  ASSERT_TRUE(t.deferred());
  ASSERT_TRUE(onnx_io::save_model(model, tmp.file("streamed.onnx")).is_ok());
  EXPECT_TRUE(t.deferred());
  // Read whole, it is made in the scratch file (past the heap's threshold), and saved from there.
  ASSERT_EQ(t.dims(), (std::vector<int64_t>{R, C}));
  for (int64_t i : {int64_t{0}, int64_t{7}, R - 1})
    for (int64_t j : {int64_t{0}, int64_t{5}, C - 1})
      EXPECT_EQ(t.data<float>()[i * C + j], w[static_cast<size_t>(j * R + i)]);
  ASSERT_TRUE(ir::file_ref(t));
  EXPECT_GE(ir::file_ref(t).file->fd, 0);
  ASSERT_TRUE(onnx_io::save_model(model, tmp.file("out.onnx")).is_ok());
  auto back = onnx_io::load_model(tmp.file("out.onnx"));
  ASSERT_TRUE(back.is_ok());
  EXPECT_TRUE(back.value()->graph->find_value("wt")->initializer()->same_contents(t));
  auto streamed = onnx_io::load_model(tmp.file("streamed.onnx"));
  ASSERT_TRUE(streamed.is_ok());
  EXPECT_TRUE(streamed.value()->graph->find_value("wt")->initializer()->same_contents(t));
  r = Status(ErrorCode::kInternal, "");  // drops the model: its scratch space is given back
  ir::scratch::set_directory("");
}

// A model holding one 2 MB tensor computed inside a ScratchScope (so: in the scratch file).
struct ScratchModel {
  std::unique_ptr<ir::Model> model;
  std::vector<float> values;
  uint64_t scratch_offset = 0;
};
ScratchModel scratch_model() {
  ScratchModel sm;
  sm.model = test::parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) {
  y = Relu(x)
}
)");
  sm.values.resize(1 << 19);
  for (size_t i = 0; i < sm.values.size(); ++i) sm.values[i] = static_cast<float>(i % 4099) * 0.125f;
  ir::ScratchScope scope(1 << 20);
  ir::Tensor t(ir::DataType::kFloat, {static_cast<int64_t>(sm.values.size())});
  std::memcpy(t.mutable_data<float>(), sm.values.data(), sm.values.size() * 4);
  EXPECT_TRUE(ir::file_ref(t));
  sm.scratch_offset = ir::file_ref(t).offset;
  ir::Rewriter rw(*sm.model);
  rw.add_initializer(*sm.model->graph, std::move(t), "w");
  return sm;
}

TEST(Scratch, SavingKeepsTheScratchFileAsTheExternalData) {
  TempDir tmp;
  ir::scratch::set_directory(tmp.path());
  ScratchModel sm = scratch_model();
  onnx_io::SaveOptions always;
  always.external = onnx_io::SaveOptions::ExternalData::kAlways;
  ASSERT_TRUE(onnx_io::save_model(*sm.model, tmp.file("out.onnx"), always).is_ok());
  // The weight was not copied: it is where the scratch file had it.
  auto back = onnx_io::load_model(tmp.file("out.onnx"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  const ir::Tensor& saved = *back.value()->graph->find_value("w")->initializer();
  EXPECT_EQ(static_cast<uint64_t>(saved.external.offset), sm.scratch_offset);
  EXPECT_EQ(saved.to_vector<float>(), sm.values);
  EXPECT_EQ(ir::scratch::bytes_in_use(), 0u);  // it is the saved file's now, not scratch
  // Writing the tensor now copies it first: the saved file does not change.
  ir::Tensor& live = *sm.model->graph->find_value("w")->initializer_ptr();
  const float* before = live.data<float>();
  float* p = live.mutable_data<float>();
  EXPECT_NE(p, before);
  p[0] = -1.0f;
  auto again = onnx_io::load_model(tmp.file("out.onnx"));
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again.value()->graph->find_value("w")->initializer()->data<float>()[0], sm.values[0]);
  // Saving the same model again (no scratch file left to keep) copies from the saved file.
  ASSERT_TRUE(onnx_io::save_model(*sm.model, tmp.file("second.onnx"), always).is_ok());
  auto second = onnx_io::load_model(tmp.file("second.onnx"));
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second.value()->graph->find_value("w")->initializer()->data<float>()[0], -1.0f);
  EXPECT_EQ(second.value()->graph->find_value("w")->initializer()->data<float>()[1], sm.values[1]);
  ir::scratch::set_directory("");
}

// Runs on two threads, each in a session of its own (what simplify_file does): each has its
// own scratch file, its counters see only it, and saving one run keeps its own file as the
// external data, never the other's, while the other is still using its file.
TEST(Scratch, SessionsOnTwoThreadsNeverShareAFile) {
  TempDir tmp;
  uint64_t outside = ir::scratch::bytes_in_use();
  std::mutex mu;
  std::condition_variable cv;
  int allocated = 0;
  const ir::FileOrigin* origins[2] = {nullptr, nullptr};
  std::string errors[2];
  auto run = [&](int k) {
    std::string& err = errors[k];
    ir::scratch::Session session(tmp.path());
    ScratchModel sm = scratch_model();
    const ir::Tensor& w = *sm.model->graph->find_value("w")->initializer();
    origins[k] = ir::file_ref(w).file;
    uint64_t mine = ir::scratch::bytes_in_use();
    if (mine != (size_t{2} << 20)) err += "in use " + std::to_string(mine) + "; ";
    {  // both runs hold their scratch tensors before either saves
      std::unique_lock<std::mutex> lock(mu);
      ++allocated;
      cv.notify_all();
      cv.wait(lock, [&] { return allocated == 2; });
    }
    onnx_io::SaveOptions always;
    always.external = onnx_io::SaveOptions::ExternalData::kAlways;
    std::string out = tmp.file("out" + std::to_string(k) + ".onnx");
    Status st = onnx_io::save_model(*sm.model, out, always);
    if (!st.is_ok()) err += st.message() + "; ";
    if (ir::scratch::bytes_in_use() != 0) err += "still in use after saving; ";
    auto back = onnx_io::load_model(out);
    if (!back.is_ok()) {
      err += back.status().message();
      return;
    }
    const ir::Tensor& saved = *back.value()->graph->find_value("w")->initializer();
    if (saved.to_vector<float>() != sm.values) err += "values differ; ";
    if (static_cast<uint64_t>(saved.external.offset) != sm.scratch_offset) err += "the weight was copied; ";
    // The data file is this run's scratch file: one 2 MB region, nothing of the other run.
    uint64_t data_size = fs::file_size(tmp.file("out" + std::to_string(k) + ".onnx.data"));
    if (data_size != (size_t{2} << 20)) err += "data file of " + std::to_string(data_size) + " bytes; ";
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  EXPECT_NE(origins[0], nullptr);
  EXPECT_NE(origins[0], origins[1]);
  EXPECT_EQ(ir::scratch::bytes_in_use(), outside);  // the default scratch file saw nothing
}

TEST(Scratch, AnotherFileSystemGetsACopy) {
  TempDir tmp;
  struct stat a {
  }, b{};
  if (stat("/dev/shm", &b) != 0 || stat(tmp.path().c_str(), &a) != 0 || a.st_dev == b.st_dev)
    GTEST_SKIP() << "no second file system at /dev/shm";
  ir::scratch::set_directory(tmp.path());
  ScratchModel sm = scratch_model();
  uint64_t in_use = ir::scratch::bytes_in_use();
  std::string dir = "/dev/shm/onnxtrim-io-test-" + std::to_string(getpid());
  fs::create_directories(dir);
  onnx_io::SaveOptions always;
  always.external = onnx_io::SaveOptions::ExternalData::kAlways;
  Status st = onnx_io::save_model(*sm.model, dir + "/out.onnx", always);
  EXPECT_TRUE(st.is_ok()) << st.message();
  auto back = onnx_io::load_model(dir + "/out.onnx");
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back.value()->graph->find_value("w")->initializer()->to_vector<float>(), sm.values);
  EXPECT_EQ(ir::scratch::bytes_in_use(), in_use);  // still scratch
  back = Status(ErrorCode::kInternal, "");
  fs::remove_all(dir);
  ir::scratch::set_directory("");
}

}  // namespace
}  // namespace onnxtrim
