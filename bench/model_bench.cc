// Benchmarks on real exports (bench/models/, made by bench/make_models.py; figures for the
// README, not a timed test):
//   model_bench pipeline MODEL.onnx   load, default pipeline, save: times and node counts
//   model_bench eval MODEL.onnx [N]   the evaluator on random inputs (batch 1): median of N runs
//   model_bench eval-fast MODEL [N]   the same with float accumulation (onnxtrim run --fast)
// scripts/bench.sh runs both, and ONNX Runtime on the same model (bench/ort_time.js), and
// prints the ratios.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "eval/verify.h"
#include "ir/verifier.h"
#include "onnx_io/onnx_io.h"
#include "passes/pass_manager.h"

using namespace onnxtrim;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

size_t count_nodes(const ir::Graph& g) {
  size_t n = 0;
  g.for_each_node([&](const ir::Node* node) {
    ++n;
    for (const ir::Graph* sg : node->subgraphs()) n += count_nodes(*sg);
  });
  return n;
}

int pipeline(const std::string& path) {
  double t0 = now();
  auto m = onnx_io::load_model(path);
  if (!m) {
    std::fprintf(stderr, "%s\n", m.status().message().c_str());
    return 1;
  }
  double t1 = now();
  size_t before = count_nodes(*m.value()->graph);
  passes::SimplifyOptions o;
  auto r = passes::simplify(*m.value(), o);
  if (!r) {
    std::fprintf(stderr, "%s\n", r.status().message().c_str());
    return 1;
  }
  double t2 = now();
  // The structural verifier every write runs (also part of save_s below): median of 5.
  std::vector<double> verify_s;
  for (int i = 0; i < 5; ++i) {
    double a = now();
    if (!ir::verify_for_write(*m.value()).is_ok()) return 1;
    verify_s.push_back(now() - a);
  }
  std::sort(verify_s.begin(), verify_s.end());
  std::string out = (std::filesystem::temp_directory_path() / "model_bench.out.onnx").string();
  Status st = onnx_io::save_model(*m.value(), out);
  double t3 = now();
  std::filesystem::remove(out);
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  std::printf(
      "{\"nodes_before\": %zu, \"nodes_after\": %zu, \"rounds\": %d, \"load_s\": %.3f, \"pipeline_s\": %.3f, "
      "\"save_s\": %.3f, \"verify_for_write_s\": %.5f}\n",
      before, count_nodes(*m.value()->graph), r.value().rounds, t1 - t0, t2 - t1, t3 - t2, verify_s[2]);
  for (const auto& p : r.value().passes)
    if (p.seconds > 0.01) std::fprintf(stderr, "  %-36s %.3f s\n", p.name.c_str(), p.seconds);
  return 0;
}

int evaluate(const std::string& path, int runs, bool fast) {
  auto m = onnx_io::load_model(path);
  if (!m) {
    std::fprintf(stderr, "%s\n", m.status().message().c_str());
    return 1;
  }
  eval::InputSpec spec;
  auto feeds = eval::make_random_inputs(*m.value(), spec, 1);
  if (!feeds) {
    std::fprintf(stderr, "%s\n", feeds.status().message().c_str());
    return 1;
  }
  eval::Interpreter interp(*m.value());
  interp.set_fast_float(fast);
  std::vector<double> times;
  for (int i = 0; i < runs + 1; ++i) {  // the first run warms up
    double t0 = now();
    auto r = interp.run(feeds.value());
    double t1 = now();
    if (!r) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    if (i > 0) times.push_back(t1 - t0);
  }
  std::sort(times.begin(), times.end());
  std::printf("{\"median_ms\": %.1f, \"runs\": %d}\n", times[times.size() / 2] * 1e3, runs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: model_bench pipeline|eval|eval-fast MODEL.onnx [RUNS]\n");
    return 2;
  }
  std::string what = argv[1];
  if (what == "pipeline") return pipeline(argv[2]);
  if (what == "eval" || what == "eval-fast")
    return evaluate(argv[2], argc > 3 ? std::atoi(argv[3]) : 5, what == "eval-fast");
  std::fprintf(stderr, "usage: model_bench pipeline|eval|eval-fast MODEL.onnx [RUNS]\n");
  return 2;
}
