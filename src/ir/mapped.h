// Buffers mapped from files: the model file, external-data files and the scratch file of
// folded weights. A tensor whose bytes are mapped knows where they are on disk (file_ref), so
// that saving copies them file to file and their pages can leave memory (release_pages).
// Kept apart from tensor.h (which every file includes): tensors reach these through the
// free functions below.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/tensor.h"

namespace onnxtrim::ir {

// A file that buffers are mapped from.
struct FileOrigin {
  std::string path;  // empty for a file without a name (the scratch file): then fd is open
  uint64_t dev = 0;  // the identity of the file that was mapped: a file later moved onto the
  uint64_t ino = 0;  // same path is another file, and is not read in its place
  int fd = -1;       // an open descriptor of it, or -1 (saving opens path)
  // A descriptor opened by read_descriptor (-1: none yet, -2: the file at path is another).
  mutable std::atomic<int> read_fd{-1};
  ~FileOrigin();
};

// Descriptors of the files that mapped tensors come from, each opened once (by its path when
// the mapping kept none) and closed with this object. A file that is no longer the one that
// was mapped (same path, another inode) gets -1: it is never read in place of the mapped one.
// An origin may be freed before this object (its tensors went away): what is kept of it is its
// address and file identity, never read through the pointer after fd_for returns.
class OriginFiles {
 public:
  OriginFiles() = default;
  OriginFiles(const OriginFiles&) = delete;
  OriginFiles& operator=(const OriginFiles&) = delete;
  ~OriginFiles();
  int fd_for(const FileOrigin* origin);

 private:
  struct Opened {
    const FileOrigin* origin;  // compared, never read: a new origin may have its address
    uint64_t dev, ino;
    int fd;  // opened here, or -1
  };
  std::vector<Opened> fds_;
};

// Where bytes are stored in a file; false when they are only in memory.
struct FileRef {
  const FileOrigin* file = nullptr;
  uint64_t offset = 0;
  explicit operator bool() const { return file != nullptr; }
};

namespace detail {
// Set when bytes of a mapping are handed out (see take_mapped_touched).
inline std::atomic<bool> mapped_touched{false};
inline void touch_mapped() {
  if (!mapped_touched.load(std::memory_order_relaxed)) mapped_touched.store(true, std::memory_order_relaxed);
}
}  // namespace detail

// A mapping of (part of) a file; unmapped when the last tensor lets go of it.
class MappedBuffer final : public Buffer {
 public:
  // base: the mapping of map_size bytes, showing `origin` from byte file_offset on.
  // writable: a shared mapping whose only holder may write it in place.
  MappedBuffer(void* base, size_t map_size, size_t size, std::shared_ptr<const FileOrigin> origin, uint64_t file_offset,
               bool writable)
      : base_(base),
        map_size_(map_size),
        size_(size),
        origin_(std::move(origin)),
        file_offset_(file_offset),
        writable_(writable) {}
  ~MappedBuffer() override;
  const uint8_t* data() const override {
    detail::touch_mapped();
    return static_cast<const uint8_t*>(base_);
  }
  size_t size() const override { return size_; }
  uint8_t* writable_data() {
    detail::touch_mapped();
    return writable_ ? static_cast<uint8_t*>(base_) : nullptr;
  }
  void set_writable(bool w) { writable_ = w; }
  FileRef file_ref(size_t off) const { return {origin_.get(), file_offset_ + off}; }
  // Drops bytes [off, off + n) from this process's memory (read back from the file on the
  // next access; a shared mapping's writes are in the page cache, so nothing is lost).
  void release(size_t off, size_t n) const;
  // Runs after the unmapping (the scratch file gives the region back).
  void on_unmap(std::function<void()> f) { on_unmap_ = std::move(f); }

 private:
  void* base_;
  size_t map_size_;
  size_t size_;
  std::shared_ptr<const FileOrigin> origin_;
  uint64_t file_offset_;
  bool writable_;
  std::function<void()> on_unmap_;
};

// Bytes of a mapping that are not aligned for their element type (raw_data in the model file
// sits wherever the protobuf framing put it): copied to aligned memory on first read. Its
// file_ref is still the source's, so saving copies the bytes file to file.
class AlignedView final : public Buffer {
 public:
  AlignedView(std::shared_ptr<const MappedBuffer> src, size_t offset, size_t size)
      : src_(std::move(src)), offset_(offset), size_(size) {}
  const uint8_t* data() const override;
  size_t size() const override { return size_; }
  const uint8_t* unaligned_data() const override { return src_->data() + offset_; }
  FileRef file_ref(size_t off) const { return src_->file_ref(offset_ + off); }
  void release(size_t off, size_t n) const { src_->release(offset_ + off, n); }
  const MappedBuffer& source() const { return *src_; }
  size_t source_offset() const { return offset_; }

 private:
  std::shared_ptr<const MappedBuffer> src_;
  size_t offset_;
  size_t size_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<uint64_t[]> copy_;
};

// Where a tensor's bytes are stored in a file (a mapped tensor), else false.
FileRef file_ref(const Tensor& t);
// A descriptor to read the file with pread, owned by the origin (valid while a buffer mapped
// from it lives), or -1: for a few bytes spread over many pages, read without faulting pages
// of the mapping in (each fault maps 16 of them, which release_pages then unmaps). Few files
// keep one open at a time; past that, -1.
int read_descriptor(const FileOrigin* origin);
// Lets a mapped tensor's pages leave memory (they are read back on the next access); nothing
// for a tensor in the heap.
void release_pages(const Tensor& t);
// The same for bytes [off, off + n) of the tensor (a kernel hands back what it has written).
void release_pages(const Tensor& t, size_t off, size_t n);
// The same for all of these tensors, with one call per mapping they share (a model file holds
// hundreds of weights): everything between the first and the last of them in a mapping goes.
void release_pages(const std::vector<const Tensor*>& ts);
// Whether bytes of a mapping were handed out (to be read, or to make a deferred tensor from)
// since the last call: if not, nothing has come into memory that release_pages would send away.
bool take_mapped_touched();

}  // namespace onnxtrim::ir
