// Small hashing helpers (FNV-1a, combine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace onnxtrim {

inline uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
inline uint64_t hash_str(std::string_view s, uint64_t h = 0xcbf29ce484222325ull) {
  return fnv1a(s.data(), s.size(), h);
}
inline uint64_t hash_combine(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

}  // namespace onnxtrim
