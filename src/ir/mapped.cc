#include "ir/mapped.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace onnxtrim::ir {

MappedBuffer::~MappedBuffer() {
  if (base_ != nullptr && map_size_ != 0) munmap(base_, map_size_);
  if (on_unmap_) on_unmap_();
}

void MappedBuffer::release(size_t off, size_t n) const {
  if (base_ == nullptr || n == 0) return;
  static const size_t ps = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto start = reinterpret_cast<uintptr_t>(data()) + off;
  uintptr_t lo = (start + ps - 1) & ~(ps - 1);  // whole pages inside the range only
  uintptr_t hi = (start + n) & ~(ps - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

const uint8_t* AlignedView::data() const {
  std::call_once(once_, [&] {
    copy_.reset(new uint64_t[(size_ + 7) / 8]);
    if (size_ != 0) std::memcpy(copy_.get(), src_->data() + offset_, size_);
    // The copy serves the kernels from now on; the file's pages are not needed in memory.
    src_->release(offset_, size_);
  });
  return reinterpret_cast<const uint8_t*>(copy_.get());
}

FileRef file_ref(const Tensor& t) {
  const Buffer* b = t.buffer().get();
  if (b == nullptr) return {};
  b = b->resolved();
  if (auto* m = dynamic_cast<const MappedBuffer*>(b)) return m->file_ref(t.buffer_offset());
  if (auto* v = dynamic_cast<const AlignedView*>(b)) return v->file_ref(t.buffer_offset());
  return {};
}

void release_pages(const Tensor& t) { release_pages(t, 0, t.byte_size()); }

void release_pages(const Tensor& t, size_t off, size_t n) {
  const Buffer* b = t.buffer().get();
  if (b == nullptr || n == 0 || off >= t.byte_size()) return;
  if (auto* d = dynamic_cast<const DeferredBuffer*>(b); d && d->deferred()) {
    d->release_sources();  // what making its parts read (the whole of it: parts read sources across)
    return;
  }
  b = b->resolved();
  n = std::min(n, t.byte_size() - off);
  if (auto* m = dynamic_cast<const MappedBuffer*>(b)) m->release(t.buffer_offset() + off, n);
  else if (auto* v = dynamic_cast<const AlignedView*>(b)) v->release(t.buffer_offset() + off, n);
}

}  // namespace onnxtrim::ir
