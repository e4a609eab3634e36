// libFuzzer target: the whole pipeline on arbitrary bytes, as `onnxtrim IN OUT` runs it:
// load -> simplify (default pipeline, structural verifier after every pass) -> save -> load
// again. What it may answer: an error for bytes that are not a valid model, and for a model
// past a documented limit; anything else is a bug and aborts:
//  - a crash, a leak, a sanitizer report, a hang (libFuzzer's -timeout), an allocation past
//    -malloc_limit_mb;
//  - an internal error (exit 70 for the CLI), an IR that fails the verifier;
//  - a model we write that we cannot load back, or that does not write back to the same bytes.
// Work per input is bounded so that the fuzzer finds bugs rather than slow inputs: the
// evaluator's limits (support/limits.h) cap every tensor, all tensors together and the nodes
// run, and the fixed point is capped at a few rounds.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "ir/verifier.h"
#include "onnx_io/onnx_io.h"
#include "passes/pass_manager.h"
#include "support/limits.h"

namespace {

using namespace onnxtrim;

// External data is looked up in an empty folder: no fuzzed name reaches a real file.
const std::string& empty_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/onnxtrim-fuzz-XXXXXX";
    const char* d = mkdtemp(tmpl);
    return std::string(d ? d : "/nonexistent");
  }();
  return dir;
}

[[noreturn]] void bug(const std::string& stage, const Status& st) {
  std::fprintf(stderr, "pipeline_fuzzer: BUG at %s: %s\n", stage.c_str(), st.message().c_str());
  std::abort();
}

}  // namespace

// How many inputs reached each stage: loaded and verified, simplified, saved and reloaded (a
// fuzzer whose inputs never get past the loader tests little; the mutation driver prints these).
extern "C" {
unsigned long long onnxtrim_pipeline_fuzzer_stats[3] = {0, 0, 0};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx_io::LoadOptions lo;
  auto loaded =
      onnx_io::parse_model(std::string_view(reinterpret_cast<const char*>(data), size), "<fuzz>", empty_dir(), lo);
  if (!loaded) {
    if (loaded.status().code() == ErrorCode::kInternal) bug("load", loaded.status());
    return 0;
  }
  ir::Model& m = *loaded.value();
  {
    // The CLI checks the loaded model the same way and stops with its error.
    Status st = ir::verify_model(m);
    if (!st.is_ok() && st.code() == ErrorCode::kInternal) bug("verify after load", st);
    if (!st.is_ok()) return 0;
  }
  ++onnxtrim_pipeline_fuzzer_stats[0];

  EvalLimits limits;
  limits.max_tensor_bytes = 4u << 20;
  limits.max_total_bytes = 64u << 20;
  limits.max_steps = 20000;
  ScopedLimits scope(limits);

  passes::SimplifyOptions so;
  so.max_rounds = 3;
  so.verify_ir = true;  // an IR broken by a pass is an internal error
  auto r = passes::simplify(m, so);
  if (!r) {
    if (r.status().code() == ErrorCode::kInternal) bug("simplify", r.status());
    return 0;
  }
  Status st = ir::verify_model(m);
  if (!st.is_ok()) bug("verify after simplify", st);
  ++onnxtrim_pipeline_fuzzer_stats[1];

  auto bytes = onnx_io::serialize_model(m);
  if (!bytes) bug("save", bytes.status());
  auto again = onnx_io::parse_model(bytes.value(), "<fuzz-out>", empty_dir(), lo);
  if (!again) bug("load of the saved model", again.status());
  auto bytes2 = onnx_io::serialize_model(*again.value());
  if (!bytes2) bug("second save", bytes2.status());
  if (bytes2.value() != bytes.value())
    bug("second save", Status(ErrorCode::kInternal, "the saved model does not save back to the same bytes"));
  ++onnxtrim_pipeline_fuzzer_stats[2];
  return 0;
}
