#include "passes/folding_policy.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace onnxtrim::passes {

uint64_t tensor_bytes(const ir::Tensor& t) {
  if (t.dtype() == ir::DataType::kString) {
    uint64_t n = 0;
    for (const auto& s : t.strings()) n += s.size() + 2;
    return n;
  }
  return t.byte_size();
}

bool is_splat(const ir::Tensor& t) {
  if (t.numel() <= 1) return true;
  if (t.dtype() == ir::DataType::kString) {
    for (const auto& s : t.strings())
      if (s != t.strings()[0]) return false;
    return true;
  }
  int bits = ir::dtype_bits(t.dtype());
  if (bits < 8 || !t.buffer()) return false;
  size_t w = static_cast<size_t>(bits / 8);
  // Compared byte-wise (no aligned copy), a piece at a time (Tensor::scan), against a 4 KiB
  // run of the first element: memcmp over whole runs, not one call per element (a 500 MB
  // weight is scanned in tens of milliseconds, not half a second).
  std::vector<uint8_t> run;
  return t.scan(w, [&](const uint8_t* p, size_t n) {
    if (run.empty()) {
      run.resize(w * std::max<size_t>(1, 4096 / w));
      for (size_t k = 0; k < run.size(); k += w) std::memcpy(run.data() + k, p, w);
    }
    size_t k = 0;
    for (; k + run.size() <= n; k += run.size())
      if (std::memcmp(p + k, run.data(), run.size()) != 0) return false;
    return k == n || std::memcmp(p + k, run.data(), n - k) == 0;  // n - k: whole elements, < run
  });
}

bool generator_type(ir::DataType t, int64_t opset) {
  using DT = ir::DataType;
  switch (t) {
    case DT::kFloat16:
    case DT::kFloat:
    case DT::kDouble:
    case DT::kInt8:
    case DT::kInt16:
    case DT::kInt32:
    case DT::kInt64:
    case DT::kUint8:
    case DT::kUint16:
    case DT::kUint32:
    case DT::kUint64:
    case DT::kBool: return opset >= 9;
    case DT::kBFloat16: return opset >= 20;
    default: return false;
  }
}

FoldDecision size_guard(uint64_t freed_bytes, bool tiny_inputs, const std::vector<const ir::Tensor*>& outputs,
                        uint64_t size_threshold) {
  uint64_t out = 0;
  bool splat_big = false;
  for (const ir::Tensor* t : outputs) {
    uint64_t b = tensor_bytes(*t);
    out += b;
    if (b > kSplatBytes && is_splat(*t)) splat_big = true;
  }
  if (out <= kTinyBytes) return {true, ""};
  if (out <= freed_bytes) return {true, ""};
  if (splat_big) return {false, "a large splat (stays a generator node)"};
  if (!tiny_inputs) return {false, "it would grow the model (its outputs are larger than the inputs they free)"};
  if (out > freed_bytes + size_threshold) return {false, "larger than its inputs by more than the size threshold"};
  return {true, ""};
}

uint64_t fold_budget(uint64_t model_bytes, int64_t requested) {
  if (requested >= 0) return static_cast<uint64_t>(requested);
  return std::max(kMinFoldBudget, model_bytes / 16);
}

bool may_fold(uint64_t predicted_bytes, uint64_t freed_bytes, bool tiny_inputs, uint64_t size_threshold) {
  if (predicted_bytes <= kTinyBytes || predicted_bytes <= freed_bytes) return true;
  return tiny_inputs && predicted_bytes <= freed_bytes + size_threshold;
}

}  // namespace onnxtrim::passes
