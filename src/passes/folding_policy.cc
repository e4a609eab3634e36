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
  // Compared byte-wise (no aligned copy), a piece at a time (Tensor::scan).
  std::vector<uint8_t> first;
  return t.scan(w, [&](const uint8_t* p, size_t n) {
    if (first.empty()) first.assign(p, p + w);
    for (size_t k = 0; k < n; k += w)
      if (std::memcmp(first.data(), p + k, w) != 0) return false;
    return true;
  });
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
