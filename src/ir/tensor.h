// Tensor: dtype, dims and data.
//
// Numeric data is held as raw little-endian bytes (sub-byte types packed, low bits first),
// in a shared, immutable Buffer: copying a Tensor shares the bytes; writing through
// mutable_bytes() copies them first if anybody else holds them. A Buffer may own a string
// moved out of the parsed protobuf, a vector, or a read-only mmap of an external-data file,
// so loading never copies weights more than the parser already did.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace onnxtrim::ir {

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual const uint8_t* data() const = 0;
  virtual size_t size() const = 0;
  // The bytes where they are, perhaps not aligned for their element type: for code that only
  // copies elements with memcpy (data() may have to make an aligned copy first).
  virtual const uint8_t* unaligned_data() const { return data(); }
  // Copies bytes [off, off + n) to dst. A DeferredBuffer computes them without making the whole.
  virtual void read(size_t off, size_t n, uint8_t* dst) const {
    if (n) std::memcpy(dst, unaligned_data() + off, n);
  }
  // True while the bytes exist only as a recipe (DeferredBuffer): data() would make them.
  virtual bool deferred() const { return false; }
  // The buffer that holds the bytes: this, or what a DeferredBuffer has made.
  virtual const Buffer* resolved() const { return this; }
  // read() is fastest for ranges that begin and end at multiples of this many bytes (a
  // deferred transpose: whole cache lines of its source at a time).
  virtual size_t grain() const { return 1; }
};

class StringBuffer final : public Buffer {
 public:
  explicit StringBuffer(std::string s) : s_(std::move(s)) {}
  const uint8_t* data() const override { return reinterpret_cast<const uint8_t*>(s_.data()); }
  size_t size() const override { return s_.size(); }
  std::string& str() { return s_; }

 private:
  std::string s_;
};

class VectorBuffer final : public Buffer {
 public:
  explicit VectorBuffer(size_t n) : v_(n) {}
  explicit VectorBuffer(std::vector<uint8_t> v) : v_(std::move(v)) {}
  const uint8_t* data() const override { return v_.data(); }
  size_t size() const override { return v_.size(); }
  uint8_t* mutable_data() { return v_.data(); }

 private:
  std::vector<uint8_t> v_;
};

// A read-only or anonymous memory mapping; unmapped when the last tensor lets go of it.
class MmapBuffer final : public Buffer {
 public:
  MmapBuffer(void* base, size_t map_size, size_t offset, size_t size)
      : base_(base), map_size_(map_size), offset_(offset), size_(size) {}
  ~MmapBuffer() override;
  const uint8_t* data() const override { return static_cast<const uint8_t*>(base_) + offset_; }
  size_t size() const override { return size_; }
  uint8_t* mutable_data() { return static_cast<uint8_t*>(base_) + offset_; }
  // Anonymous zero-filled mapping of n bytes (pages cost nothing until touched).
  static std::shared_ptr<MmapBuffer> anonymous(size_t n);

 private:
  void* base_;
  size_t map_size_;
  size_t offset_;
  size_t size_;
};

// Bytes computed when they are first needed: a kernel's result that may never be needed whole
// in memory (a weight behind an exporter's Transpose is folded, then only saved: saving reads it
// a piece at a time, straight into the output). fill(dst, begin, end) writes bytes
// [begin, end) of the result to dst, begin and end being multiples of `elem` bytes; it may be
// called from several threads at once. data() makes the whole (once) where the thread's scratch
// threshold at construction says, and lets go of the recipe (and what it holds) then.
class DeferredBuffer final : public Buffer {
 public:
  using Fill = std::function<void(uint8_t* dst, size_t begin, size_t end)>;
  // The bytes the recipe reads (held until it is carried out): ir::release_pages of a deferred
  // tensor lets their pages leave memory, as for a mapped tensor.
  struct Source {
    std::shared_ptr<const Buffer> buffer;
    size_t offset;
    size_t size;
  };
  // `grain` (a multiple of elem): the ranges fill makes fastest begin and end at its multiples.
  DeferredBuffer(size_t size, size_t elem, Fill fill, Source source, size_t grain = 0);
  DeferredBuffer(size_t size, size_t elem, Fill fill)
      : DeferredBuffer(size, elem, std::move(fill), Source{nullptr, 0, 0}) {}
  const uint8_t* data() const override;
  size_t size() const override { return size_; }
  void read(size_t off, size_t n, uint8_t* dst) const override;
  bool deferred() const override { return !made_.load(std::memory_order_acquire); }
  const Buffer* resolved() const override;
  size_t grain() const override { return deferred() ? grain_ : 1; }
  // The source while the recipe is not carried out (then an empty one).
  Source source() const;
  // The buffer of the made bytes (made now if they were not).
  std::shared_ptr<Buffer> whole() const {
    data();
    return whole_;
  }

 private:
  size_t size_;
  size_t elem_;
  size_t grain_;
  size_t scratch_threshold_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const Fill> fill_;  // null once made
  mutable Source source_;                     // guarded by mu_
  mutable std::once_flag once_;
  mutable std::shared_ptr<Buffer> whole_;
  mutable std::atomic<bool> made_{false};
};

// Where a tensor's bytes were found outside the model file (ExternalData.md).
struct ExternalRef {
  std::string location;  // relative to the model's folder
  int64_t offset = 0;
  int64_t length = -1;  // -1: to the end of the file
  std::string checksum;
  bool present() const { return !location.empty(); }
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(DataType dtype, std::vector<int64_t> dims);  // zero-filled

  // dtype and dims only; bytes are attached later with set_buffer (or mutable_bytes allocates).
  static Tensor shell(DataType dtype, std::vector<int64_t> dims);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t numel() const { return numel_; }  // cached: kernels call it in loop conditions
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // Raw bytes (not for strings).
  size_t byte_size() const { return nbytes_; }
  const uint8_t* bytes() const { return buf_ ? buf_->data() + offset_ : nullptr; }
  // The same bytes, perhaps not aligned for the element type (no copy is made to align them):
  // only for reading elements with memcpy.
  const uint8_t* unaligned_bytes() const { return buf_ ? buf_->unaligned_data() + offset_ : nullptr; }
  uint8_t* mutable_bytes();  // copy-on-write
  // Bytes [off, off + n) copied to dst, without making a deferred tensor's whole bytes.
  void read(size_t off, size_t n, uint8_t* dst) const {
    if (n) buf_->read(offset_ + off, n, dst);
  }
  // read() is fastest for ranges whose bounds are multiples of this many bytes (1: any).
  size_t read_grain() const {
    size_t g = buf_ ? buf_->grain() : 1;
    return offset_ % g == 0 ? g : 1;
  }
  // Bytes [off, off + n) for reading with memcpy: where they are, or, for a deferred tensor,
  // made into tmp (so that looking at part of a folded weight does not make all of it).
  const uint8_t* view(size_t off, size_t n, std::vector<uint8_t>& tmp) const {
    if (!deferred()) return unaligned_bytes() + off;
    tmp.resize(n);
    read(off, n, tmp.data());
    return tmp.data();
  }
  // Calls f(p, n) on bytes [0, byte_size()) in consecutive pieces of whole elements of `elem`
  // bytes, from 16 elements growing to 64 KB, while f returns true; false when f stopped. A
  // deferred tensor is made a piece at a time: a test that its first elements decide (is it a
  // splat, is it all zeros) does not make all of it.
  bool scan(size_t elem, const std::function<bool(const uint8_t* p, size_t n)>& f) const;
  // The bytes are a recipe not yet carried out (a DeferredBuffer): bytes() would carry it out.
  bool deferred() const { return buf_ && buf_->deferred(); }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes());
  }
  template <typename T>
  T* mutable_data() {
    return reinterpret_cast<T*>(mutable_bytes());
  }
  template <typename T>
  std::vector<T> to_vector() const {
    std::vector<T> out(static_cast<size_t>(numel()));
    if (!out.empty()) std::memcpy(out.data(), bytes(), out.size() * sizeof(T));
    return out;
  }

  // Adopt bytes (size must equal dtype_storage_bytes(dtype, numel)).
  void set_buffer(std::shared_ptr<const Buffer> buf, size_t offset, size_t nbytes) {
    buf_ = std::move(buf);
    offset_ = offset;
    nbytes_ = nbytes;
  }
  const std::shared_ptr<const Buffer>& buffer() const { return buf_; }
  size_t buffer_offset() const { return offset_; }

  std::vector<std::string>& strings() { return strings_; }
  const std::vector<std::string>& strings() const { return strings_; }

  // Bookkeeping that serialization uses to write the tensor back as it was read.
  bool typed_encoding = false;  // came from float_data/int32_data/... rather than raw_data
  ExternalRef external;         // came from (or is to go to) an external file
  std::string extra;            // serialized TensorProto fields the IR does not interpret
  uint32_t presence = 0;        // optional proto fields present in the file (onnx_io only)

  // Equal dtype, dims and bytes (strings compared element-wise). Names are ignored.
  bool same_contents(const Tensor& other) const;

  template <typename T>
  static Tensor from_vector(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& v) {
    Tensor t(dtype, std::move(dims));
    if (!v.empty()) std::memcpy(t.mutable_bytes(), v.data(), v.size() * sizeof(T));
    return t;
  }
  static Tensor scalar_i64(int64_t v) { return from_vector<int64_t>(DataType::kInt64, {}, {v}); }
  static Tensor scalar_f32(float v) { return from_vector<float>(DataType::kFloat, {}, {v}); }

 private:
  DataType dtype_ = DataType::kUndefined;
  std::vector<int64_t> dims_;
  int64_t numel_ = 1;
  std::string name_;
  std::shared_ptr<const Buffer> buf_;
  size_t offset_ = 0;
  size_t nbytes_ = 0;
  std::vector<std::string> strings_;
};

}  // namespace onnxtrim::ir
