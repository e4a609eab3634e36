// The runtimes --target names, and what each changes in the pipeline: one table, read by the
// options (which names exist) and by the pass manager (which passes a target turns on or off).
// A target turns on what only it can take (legalize_coreml) and turns off what makes it slower
// (measured: bench/README.md); --passes and --enable still choose any pass explicitly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnxtrim::passes {

struct TargetInfo {
  std::string name;
  std::string description;           // for --help: what it does
  std::vector<std::string> enable;   // passes off by default that it turns on
  std::vector<std::string> disable;  // passes on by default that it turns off
};

const std::vector<TargetInfo>& targets();
const TargetInfo* find_target(std::string_view name);
// "coreml, wasm, tensorrt, openvino": for messages.
std::string target_names();

// The fusions into standard ONNX ops: the pass, the op it writes, the opset that has the op, the
// first ONNX Runtime release that runs that opset, and the other passes that write the same op
// from other forms (counted with it in the report's "what --opset N would fuse").
struct StandardOpFusion {
  std::string pass;
  std::string op;
  int64_t opset;
  std::string runtimes;
  std::vector<std::string> variants = {};
};
const std::vector<StandardOpFusion>& standard_op_fusions();

}  // namespace onnxtrim::passes
