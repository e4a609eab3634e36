#include "ir/mapped.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "support/platform.h"

namespace onnxtrim::ir {

MappedBuffer::~MappedBuffer() {
  platform::unmap(base_, map_size_);
  if (on_unmap_) on_unmap_();
}

void MappedBuffer::release(size_t off, size_t n) const {
  if (base_ == nullptr || n == 0) return;
  platform::release_pages(static_cast<const uint8_t*>(base_) + off, n);  // (not data(): that counts as a touch)
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

namespace {
// Where bytes [off, off + n) of buffer b are in a mapping, if they are: a deferred buffer's
// are those of its source (all of it: making any part of it reads the source across).
struct MappedRange {
  const MappedBuffer* map = nullptr;
  size_t off = 0, n = 0;
};
MappedRange mapped_range(const Buffer* b, size_t off, size_t n) {
  if (auto* d = dynamic_cast<const DeferredBuffer*>(b); d && d->deferred()) {
    DeferredBuffer::Source s = d->source();
    return s.buffer ? mapped_range(s.buffer.get(), s.offset, s.size) : MappedRange{};
  }
  b = b->resolved();
  if (auto* m = dynamic_cast<const MappedBuffer*>(b)) return {m, off, n};
  if (auto* v = dynamic_cast<const AlignedView*>(b)) return {&v->source(), v->source_offset() + off, n};
  return {};
}
}  // namespace

OriginFiles::~OriginFiles() {
  for (const Opened& o : fds_)
    if (o.fd >= 0) ::close(o.fd);
}

int OriginFiles::fd_for(const FileOrigin* origin) {
  if (origin->fd >= 0) return origin->fd;
  for (const Opened& o : fds_)
    if (o.origin == origin && o.dev == origin->dev && o.ino == origin->ino) return o.fd;
  int fd = ::open(origin->path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_dev) != origin->dev ||
                  static_cast<uint64_t>(st.st_ino) != origin->ino)) {
    ::close(fd);
    fd = -1;
  }
  fds_.push_back(Opened{origin, origin->dev, origin->ino, fd});
  return fd;
}

namespace {
constexpr int kMaxReadDescriptors = 64;
std::atomic<int> read_descriptors{0};
}  // namespace

FileOrigin::~FileOrigin() {
  int fd = read_fd.load(std::memory_order_acquire);
  if (fd >= 0) {
    ::close(fd);
    read_descriptors.fetch_sub(1, std::memory_order_relaxed);
  }
}

int read_descriptor(const FileOrigin* origin) {
  if (origin == nullptr) return -1;
  if (origin->fd >= 0) return origin->fd;
  int fd = origin->read_fd.load(std::memory_order_acquire);
  if (fd != -1) return fd < 0 ? -1 : fd;
  if (origin->path.empty()) return -1;
  if (read_descriptors.fetch_add(1, std::memory_order_relaxed) >= kMaxReadDescriptors) {
    read_descriptors.fetch_sub(1, std::memory_order_relaxed);
    return -1;
  }
  fd = ::open(origin->path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_dev) != origin->dev ||
                  static_cast<uint64_t>(st.st_ino) != origin->ino)) {
    ::close(fd);
    fd = -2;  // another file is at the path now: never read in place of the mapped one
  }
  if (fd < 0) read_descriptors.fetch_sub(1, std::memory_order_relaxed);
  int expected = -1;
  if (!origin->read_fd.compare_exchange_strong(expected, fd, std::memory_order_acq_rel)) {
    if (fd >= 0) {  // another thread opened it first
      ::close(fd);
      read_descriptors.fetch_sub(1, std::memory_order_relaxed);
    }
    fd = expected;
  }
  return fd < 0 ? -1 : fd;
}

void release_pages(const Tensor& t) { release_pages(t, 0, t.byte_size()); }

void release_pages(const Tensor& t, size_t off, size_t n) {
  const Buffer* b = t.buffer().get();
  if (b == nullptr || n == 0 || off >= t.byte_size()) return;
  n = std::min(n, t.byte_size() - off);
  MappedRange r = mapped_range(b, t.buffer_offset() + off, n);
  if (r.map) r.map->release(r.off, r.n);
}

void release_pages(const std::vector<const Tensor*>& ts) {
  std::map<const MappedBuffer*, std::pair<size_t, size_t>> hull;
  for (const Tensor* t : ts) {
    if (!t->buffer() || t->byte_size() == 0) continue;
    MappedRange r = mapped_range(t->buffer().get(), t->buffer_offset(), t->byte_size());
    if (!r.map) continue;
    auto [it, fresh] = hull.emplace(r.map, std::pair{r.off, r.off + r.n});
    if (!fresh) it->second = {std::min(it->second.first, r.off), std::max(it->second.second, r.off + r.n)};
  }
  for (const auto& [m, range] : hull) m->release(range.first, range.second - range.first);
}

bool take_mapped_touched() { return detail::mapped_touched.exchange(false, std::memory_order_relaxed); }

}  // namespace onnxtrim::ir
