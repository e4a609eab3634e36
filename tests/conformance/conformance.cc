// Conformance runner: every ONNX backend test (node/, simple/, pytorch-converted/,
// pytorch-operator/, and the light/ model-zoo models) through our evaluator, compared with the
// expected outputs. A checked-in manifest lists expected failures and skips with reasons; any
// other failure (a regression) or a listed failure that now passes fails the run.
//
//   onnxtrim_conformance [--data DIR] --manifest FILE [--filter SUBSTR] [--verbose]
// Without --data, the data is where tests/test_data.h says (ONNXTRIM_TEST_DATA in the
// environment, else the CMake option). Missing data, or a run of no case, fails.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "eval/compare.h"
#include "eval/interpreter.h"
#include "onnx_io/onnx_io.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "../test_data.h"

namespace fs = std::filesystem;
using namespace onnxtrim;

namespace {

struct Entry {
  std::string kind;  // skip | fail | tol | random (outputs compared by dtype and shape only)
  double rtol = 0, atol = 0;
  std::string reason;
};

std::map<std::string, Entry> read_manifest(const std::string& path) {
  std::map<std::string, Entry> m;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string name;
    Entry e;
    is >> name >> e.kind;
    if (e.kind == "tol") is >> e.rtol >> e.atol;
    std::getline(is, e.reason);
    e.reason.erase(0, e.reason.find_first_not_of(" \t"));
    m[name] = e;
  }
  return m;
}

struct Outcome {
  bool ok = true;
  std::string why;
};

// Random ops: the values cannot match a recorded draw; the dtype and shape must.
eval::Diff compare_shape_only(const ir::RuntimeValue& got, const ir::RuntimeValue& want) {
  eval::Diff d;
  if (!got.is_tensor() || !want.is_tensor()) {
    d.ok = got.kind == want.kind;
    if (!d.ok) d.why = "kind differs";
    return d;
  }
  if (got.tensor.dtype() != want.tensor.dtype()) {
    d.ok = false;
    d.why = "dtype " + std::string(ir::dtype_name(got.tensor.dtype())) +
            " != " + std::string(ir::dtype_name(want.tensor.dtype()));
  } else if (got.tensor.dims() != want.tensor.dims()) {
    d.ok = false;
    d.why = "shape differs";
  }
  return d;
}

Outcome run_case(const fs::path& model_path, const std::vector<fs::path>& data_sets, double rtol, double atol,
                 bool shape_only = false) {
  auto r = onnx_io::load_model(model_path.string());
  if (!r) return {false, "load: " + r.status().message()};
  const ir::Model& m = *r.value();
  eval::Interpreter interp(m);
  std::vector<const ir::Value*> inputs;
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer()) inputs.push_back(v);
  for (const auto& ds : data_sets) {
    std::map<std::string, ir::RuntimeValue> feeds;
    for (size_t i = 0; i < inputs.size(); ++i) {
      fs::path p = ds / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      auto v = onnx_io::load_value_file(p.string(), inputs[i]->type);
      if (!v) return {false, "input: " + v.status().message()};
      feeds[inputs[i]->name()] = std::move(v.value());
    }
    auto out = interp.run(feeds);
    if (!out) return {false, out.status().message()};
    const auto& outs = m.graph->outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
      fs::path p = ds / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) continue;
      auto e = onnx_io::load_value_file(p.string(), outs[i]->type);
      if (!e) return {false, "expected output: " + e.status().message()};
      eval::Diff d = shape_only ? compare_shape_only(out.value()[i], e.value())
                                : eval::compare_values(out.value()[i], e.value(), rtol, atol);
      if (!d.ok) return {false, "output " + std::to_string(i) + " (" + outs[i]->name() + "): " + d.why};
    }
  }
  return {};
}

// The light/ models' expected outputs were produced by the ONNX project's test of its C
// reference evaluator (onnx/test/reference_evaluator_c_test.py, test_light_model), which feeds
// the model's one float input with arange(n).reshape(shape) / n, computed in double and then
// rounded to float32. Feed exactly that.
std::string light_feeds(const ir::Model& m, std::map<std::string, ir::RuntimeValue>* feeds) {
  for (const ir::Value* v : m.graph->inputs()) {
    if (v->is_initializer()) continue;
    auto dims = v->type.static_dims();
    if (!v->type.is_tensor() || v->type.elem != ir::DataType::kFloat || !dims)
      return "light model input " + v->name() + " is not a float tensor of static shape";
    ir::Tensor t(ir::DataType::kFloat, *dims);
    int64_t n = t.numel();
    float* p = n ? t.mutable_data<float>() : nullptr;
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
    (*feeds)[v->name()] = ir::RuntimeValue::of(std::move(t));
  }
  return "";
}

// Inference mode: our shape rules alone (declared output types ignored) must give exactly the
// dtype and shape of every expected output.
Outcome infer_case(const fs::path& model_path, const std::vector<fs::path>& data_sets) {
  auto r = onnx_io::load_model(model_path.string());
  if (!r) return {false, "load: " + r.status().message()};
  const ir::Model& m = *r.value();
  if (data_sets.empty()) return {true, ""};
  passes::InferOptions io;
  io.use_declared = false;
  // The inputs of the first data set fix the input shapes (they may differ from declared ones).
  std::vector<const ir::Value*> inputs;
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer()) inputs.push_back(v);
  for (size_t i = 0; i < inputs.size(); ++i) {
    fs::path p = data_sets[0] / ("input_" + std::to_string(i) + ".pb");
    if (!fs::exists(p) || !inputs[i]->type.is_tensor()) continue;
    auto v = onnx_io::load_value_file(p.string(), inputs[i]->type);
    if (v && v.value().is_tensor()) {
      const ir::Tensor& t = v.value().tensor;
      io.input_shapes[inputs[i]->name()] = t.dims();
      // Small inputs (axes, pads, shapes, sizes, scales, ... fed at run time: at most 64
      // elements) are known, as they would be were they constants of the model.
      if (t.numel() <= static_cast<int64_t>(ops::kMaxPropagated)) io.input_tensors[inputs[i]->name()] = t;
    }
  }
  passes::ShapeInference si(m, io);
  Status st = si.run();
  if (!st.is_ok()) return {false, st.message()};
  const auto& outs = m.graph->outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    fs::path p = data_sets[0] / ("output_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) continue;
    auto e = onnx_io::load_value_file(p.string(), outs[i]->type);
    if (!e) return {false, "expected output: " + e.status().message()};
    if (!e.value().is_tensor()) continue;  // sequences/optionals: element types only, not checked here
    const ops::TypeInfo* f = si.facts(outs[i]);
    const ir::Tensor& t = e.value().tensor;
    if (!f || f->elem != t.dtype())
      return {false, "output " + std::to_string(i) + ": dtype " + (f ? std::string(ir::dtype_name(f->elem)) : "?") +
                         " != expected " + std::string(ir::dtype_name(t.dtype()))};
    auto dims = f->static_shape();
    if (!dims || *dims != t.dims()) {
      std::string got = "?";
      if (f->shape) {
        got = "[";
        for (size_t k = 0; k < f->shape->size(); ++k) got += (k ? "," : "") + (*f->shape)[k].str();
        got += "]";
      }
      std::string want = "[";
      for (size_t k = 0; k < t.dims().size(); ++k) want += (k ? "," : "") + std::to_string(t.dims()[k]);
      return {false, "output " + std::to_string(i) + ": shape " + got + " != expected " + want + "]"};
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::string data, manifest_path, filter, write_manifest;
  bool verbose = false, infer = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--manifest" && i + 1 < argc) manifest_path = argv[++i];
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--verbose" || a == "-v") verbose = true;
    else if (a == "--infer") infer = true;
    else if (a == "--write-manifest" && i + 1 < argc) write_manifest = argv[++i];
  }
  if (data.empty()) data = test::test_data_dir();
  // The node tests are the suite's core: without them the data is not there.
  std::string missing = test::test_data_missing(data, "node");
  if (!missing.empty()) {
    std::fprintf(stderr, "%s\n", missing.c_str());
    return 1;
  }
  auto manifest = manifest_path.empty() ? std::map<std::string, Entry>{} : read_manifest(manifest_path);

  struct Case {
    std::string name;
    fs::path model;
    std::vector<fs::path> data_sets;
  };
  std::vector<Case> cases;
  for (const char* suite : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
    fs::path dir = fs::path(data) / suite;
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!fs::exists(e.path() / "model.onnx")) continue;
      Case c{std::string(suite) + "/" + e.path().filename().string(), e.path() / "model.onnx", {}};
      for (const auto& d : fs::directory_iterator(e.path()))
        if (d.is_directory() && d.path().filename().string().rfind("test_data_set_", 0) == 0)
          c.data_sets.push_back(d.path());
      std::sort(c.data_sets.begin(), c.data_sets.end());
      cases.push_back(std::move(c));
    }
  }
  // light/: models with one input fed by light_feeds(); expected output beside them.
  fs::path light = fs::path(data) / "light";
  if (fs::exists(light)) {
    for (const auto& e : fs::directory_iterator(light)) {
      if (e.path().extension() != ".onnx") continue;
      Case c{"light/" + e.path().stem().string(), e.path(), {}};
      cases.push_back(std::move(c));
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });

  std::vector<std::string> new_manifest;  // (--write-manifest) listed skips/tols kept, failures listed
  int passed = 0, failed = 0, skipped = 0, unexpected = 0, stale = 0, expected_fail = 0, by_shape = 0;
  std::map<std::string, int> suite_total, suite_pass;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    std::string suite = c.name.substr(0, c.name.find('/'));
    if (infer && suite == "light") continue;  // no expected shapes beyond the output's
    suite_total[suite]++;
    auto it = manifest.find(c.name);
    if (it != manifest.end() && it->second.kind == "skip") {
      ++skipped;
      if (verbose) std::printf("SKIP %s: %s\n", c.name.c_str(), it->second.reason.c_str());
      new_manifest.push_back(c.name + " skip " + it->second.reason);
      continue;
    }
    double rtol = 1e-3, atol = 1e-7;
    if (it != manifest.end() && it->second.kind == "tol") {
      rtol = it->second.rtol;
      atol = it->second.atol;
    }
    Outcome o;
    if (infer) {
      o = infer_case(c.model, c.data_sets);
    } else if (suite == "light") {
      auto r = onnx_io::load_model(c.model.string());
      if (!r) {
        o = {false, r.status().message()};
      } else {
        eval::Interpreter interp(*r.value());
        std::map<std::string, ir::RuntimeValue> feeds;
        std::string feed_err = light_feeds(*r.value(), &feeds);
        auto out = feed_err.empty() ? interp.run(feeds)
                                    : Result<std::vector<ir::RuntimeValue>>(Status(ErrorCode::kInvalidModel, feed_err));
        if (!out) {
          o = {false, out.status().message()};
        } else {
          fs::path exp = c.model.parent_path() / (c.model.stem().string() + "_output_0.pb");
          auto e = onnx_io::load_value_file(exp.string(), r.value()->graph->outputs()[0]->type);
          if (!e) o = {false, e.status().message()};
          else {
            eval::Diff d = eval::compare_values(out.value()[0], e.value(), rtol, atol);
            if (!d.ok) o = {false, d.why};
          }
        }
      }
    } else {
      o = run_case(c.model, c.data_sets, rtol, atol, it != manifest.end() && it->second.kind == "random");
    }
    bool listed_fail = it != manifest.end() && it->second.kind == "fail";
    if (it != manifest.end() && it->second.kind == "random") {
      new_manifest.push_back(c.name + " random " + it->second.reason);
      if (o.ok) ++by_shape;
    }
    if (it != manifest.end() && it->second.kind == "tol")
      new_manifest.push_back(c.name + " tol " + std::to_string(rtol) + " " + std::to_string(atol) + " " +
                             it->second.reason);
    if (!o.ok && it == manifest.end()) {
      std::string why = o.why.substr(0, 200);
      std::replace(why.begin(), why.end(), '\n', ' ');
      new_manifest.push_back(c.name + " fail " + why);
    } else if (!o.ok && listed_fail) {
      new_manifest.push_back(c.name + " fail " + it->second.reason);
    }
    if (o.ok) {
      ++passed;
      suite_pass[suite]++;
      if (listed_fail) {
        ++stale;
        std::printf("NOW PASSES (remove from the manifest): %s\n", c.name.c_str());
      }
    } else {
      ++failed;
      if (listed_fail) {
        ++expected_fail;
        if (verbose) std::printf("XFAIL %s: %s\n", c.name.c_str(), o.why.c_str());
      } else {
        ++unexpected;
        std::printf("FAIL %s: %s\n", c.name.c_str(), o.why.c_str());
      }
    }
  }
  if (passed + failed == 0) {
    std::fprintf(stderr, "%s: ran no test case (test data: '%s'%s)\n", infer ? "inference" : "conformance",
                 data.c_str(), filter.empty() ? "" : (", filter '" + filter + "'").c_str());
    return 1;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& [s, n] : suite_total) std::printf("  %-18s %4d/%4d pass\n", s.c_str(), suite_pass[s], n);
  std::printf(
      "%s: %d passed, %d failed, %d skipped (%d expected failures, %d unexpected, %d stale entries) in %.1f s\n",
      infer ? "inference" : "conformance", passed, failed, skipped, expected_fail, unexpected, stale, secs);
  if (by_shape) std::printf("  of the passed, %d random-op tests were compared by dtype and shape only\n", by_shape);
  if (!write_manifest.empty()) {
    std::ofstream f(write_manifest);
    f << "# Conformance manifest: tests expected to fail (fail), not run (skip), or compared with\n"
         "# stated tolerances (tol RTOL ATOL), or of random ops compared by dtype and shape only (random).\n"
         "# Format: NAME KIND [RTOL ATOL] REASON\n";
    for (const auto& l : new_manifest) f << l << "\n";
    std::printf("wrote %zu entries to %s\n", new_manifest.size(), write_manifest.c_str());
    return 0;
  }
  return unexpected || stale ? 1 : 0;
}
