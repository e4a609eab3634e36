// The protobuf wire format, read by hand where libprotobuf's objects would cost too much: the
// loader's fast path (initializers read in place from the mapped file) and the writer's split
// of a serialized graph into its records. Internal to onnx_io.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnxtrim::onnx_io::wire {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool done() const { return p >= end; }
  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) return false;
      uint8_t b = *p++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool tag(uint32_t& field, int& wt) {
    uint64_t t = 0;
    if (!varint(t) || (t >> 32) != 0 || (t >> 3) == 0) return false;
    field = static_cast<uint32_t>(t >> 3);
    wt = static_cast<int>(t & 7);
    return true;
  }
  bool bytes(const uint8_t*& data, size_t& n) {
    uint64_t len = 0;
    if (!varint(len) || len > static_cast<uint64_t>(end - p)) return false;
    data = p;
    n = static_cast<size_t>(len);
    p += n;
    return true;
  }
  bool skip(int wt) {
    uint64_t v = 0;
    const uint8_t* d = nullptr;
    size_t n = 0;
    switch (wt) {
      case kVarint: return varint(v);
      case kFixed64:
        if (end - p < 8) return false;
        p += 8;
        return true;
      case kFixed32:
        if (end - p < 4) return false;
        p += 4;
        return true;
      case kLen: return bytes(d, n);
      default: return false;  // groups: left to libprotobuf
    }
  }
};

}  // namespace onnxtrim::onnx_io::wire
