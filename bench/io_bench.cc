// Load+save benchmark: onnxtrim's loader and saver against a plain protobuf parse+serialize of
// the same file, and onnxtrim's peak resident memory against the file size. Each model size is
// measured in the same run (ratios, not absolute times, are what to read: machines are noisy).
//
//   io_bench [--sizes 4,64,400] [--repeat 3]      sizes in MB
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ir/rewriter.h"
#include "onnx/onnx_pb.h"  // the baseline: plain generated protobuf classes
#include "onnx_io/onnx_io.h"

namespace fs = std::filesystem;
using namespace onnxtrim;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A model with `mb` megabytes of float weights in tensors of 64 KB .. 16 MB, and a node per tensor.
void make_model(const std::string& path, size_t mb) {
  auto r = onnx_io::parse_text_model(
      R"(<ir_version: 8, opset_import: ["" : 17]> g (float[N] x) => (float[N] y) { y = Relu(x) })");
  ir::Model& m = *r.value();
  ir::Rewriter rw(m);
  std::mt19937 rng(1);
  size_t left = mb << 20;
  size_t sizes[] = {64 << 10, 1 << 20, 4 << 20, 16 << 20, 256 << 10};
  ir::Value* cur = m.graph->find_value("x");
  int k = 0;
  while (left > 0) {
    size_t bytes = std::min(left, sizes[k % 5]);
    size_t n = bytes / 4;
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(rng() % 1000) * 0.001f;
    ir::Value* w = rw.add_initializer(
        *m.graph, ir::Tensor::from_vector(ir::DataType::kFloat, {static_cast<int64_t>(n)}, v), "w" + std::to_string(k));
    ir::Node* add = rw.insert_node(*m.graph, cur->producer(), "Add", {cur, w}, 1, "add" + std::to_string(k));
    (void)add;
    left -= bytes;
    ++k;
  }
  Status st = onnx_io::save_model(m, path, {});
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    std::exit(1);
  }
}

double plain_protobuf(const std::string& in, const std::string& out) {
  double t0 = now();
  std::ifstream f(in, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string bytes = ss.str();
  onnx::ModelProto mp;
  if (!mp.ParseFromString(bytes)) std::exit(2);
  std::ofstream o(out, std::ios::binary);
  if (!mp.SerializeToOstream(&o)) std::exit(3);
  o.close();
  return now() - t0;
}

double onnxtrim_load_save(const std::string& in, const std::string& out) {
  double t0 = now();
  auto r = onnx_io::load_model(in);
  if (!r) std::exit(4);
  if (!onnx_io::save_model(*r.value(), out, {}).is_ok()) std::exit(5);
  return now() - t0;
}

// Peak resident memory (KiB) of a child that runs fn.
template <typename F>
long peak_rss_kib(F&& fn) {
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    _exit(0);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  return ru.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {4, 64, 400};
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::stringstream ss(argv[++i]);
      std::string tok;
      while (std::getline(ss, tok, ',')) sizes.push_back(std::stoul(tok));
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::stoi(argv[++i]);
    }
  }
  std::string dir = (fs::temp_directory_path() / ("onnxtrim-io-bench-" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  std::printf("%10s %14s %14s %8s %12s %10s\n", "model", "protobuf (s)", "onnxtrim (s)", "ratio", "peak RSS",
              "RSS/file");
  for (size_t mb : sizes) {
    std::string in = dir + "/m" + std::to_string(mb) + ".onnx";
    std::string out = dir + "/out.onnx";
    make_model(in, mb);
    double file_mb = static_cast<double>(fs::file_size(in)) / (1 << 20);
    double best_pb = 1e9, best_ot = 1e9;
    for (int r = 0; r < repeat; ++r) {  // interleaved, best of N: both see the same machine state
      best_pb = std::min(best_pb, plain_protobuf(in, out));
      best_ot = std::min(best_ot, onnxtrim_load_save(in, out));
    }
    long rss = peak_rss_kib([&] { onnxtrim_load_save(in, out); });
    double rss_mb = static_cast<double>(rss) / 1024;
    std::printf("%7.0f MB %14.3f %14.3f %7.2fx %9.0f MB %9.2fx\n", file_mb, best_pb, best_ot, best_ot / best_pb, rss_mb,
                rss_mb / file_mb);
    fs::remove(in);
    fs::remove(out);
  }
  fs::remove_all(dir);
  return 0;
}
