#include "support/text.h"

#include <cstdint>

namespace onnxtrim::support {

namespace {

// Length of the well-formed UTF-8 sequence at p (0 when there is none).
size_t utf8_length(const unsigned char* p, const unsigned char* end) {
  unsigned c = *p;
  if (c < 0x80) return 1;
  size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || c > 0xF4 || static_cast<size_t>(end - p) < len) return 0;
  uint32_t cp = c & (0x7Fu >> len);
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3Fu);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    size_t len = utf8_length(p, end);
    if (len == 0) return false;
    p += len;
  }
  return true;
}

std::string printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  std::string out;
  out.reserve(s.size());
  while (p < end) {
    size_t len = utf8_length(p, end);
    if (len == 0 || (len == 1 && (*p < 0x20 || *p == 0x7F))) {
      out += "\\x";
      out += kHex[*p >> 4];
      out += kHex[*p & 15];
      ++p;
      continue;
    }
    out.append(reinterpret_cast<const char*>(p), len);
    p += len;
  }
  return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

}  // namespace onnxtrim::support
