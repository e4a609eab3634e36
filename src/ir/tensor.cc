#include "ir/tensor.h"

#include "ir/mapped.h"
#include "ir/scratch.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "support/limits.h"

namespace onnxtrim::ir {

MmapBuffer::~MmapBuffer() {
  if (base_ != nullptr && map_size_ != 0) munmap(base_, map_size_);
}

std::shared_ptr<MmapBuffer> MmapBuffer::anonymous(size_t n) {
  if (n == 0) return std::make_shared<MmapBuffer>(nullptr, 0, 0, 0);
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return std::make_shared<MmapBuffer>(p, n, 0, n);
}

namespace {
// The element count of dims; a count past int64 (or a negative dim) is refused here, before
// anything is allocated.
int64_t product(DataType dtype, const std::vector<int64_t>& dims) {
  int64_t n = checked_numel(dims);
  if (n < 0) charge_tensor(-1, 0, dtype_name(dtype), dims);
  return n;
}

// n zero bytes in the heap, from calloc: the fresh pages of a large block are handed out
// untouched (they are zero already), so that a tensor's memory becomes resident as its kernel
// writes it, not all at once before (a vector of n zeros writes every page first: a 64 MB copy
// of a weight was in memory whole before a byte of it was computed).
class ZeroedBuffer final : public Buffer {
 public:
  explicit ZeroedBuffer(size_t n) : n_(n) {
    if (n == 0) return;  // no bytes: data() is null, as an empty vector's
    p_ = static_cast<uint8_t*>(std::calloc(n, 1));
    if (p_ == nullptr) throw std::bad_alloc();
  }
  ~ZeroedBuffer() override { std::free(p_); }
  ZeroedBuffer(const ZeroedBuffer&) = delete;
  ZeroedBuffer& operator=(const ZeroedBuffer&) = delete;
  const uint8_t* data() const override { return p_; }
  size_t size() const override { return n_; }
  uint8_t* mutable_data() const { return p_; }

 private:
  uint8_t* p_ = nullptr;
  size_t n_;
};

// Zero-filled bytes: in the scratch file inside a ScratchScope (large sizes), else the heap.
std::shared_ptr<Buffer> allocate_bytes(size_t n, uint8_t** p) {
  if (n >= ScratchScope::threshold()) {
    if (auto b = scratch::allocate(n)) {
      *p = b->writable_data();
      return b;
    }
  }
  auto z = std::make_shared<ZeroedBuffer>(n);
  *p = z->mutable_data();
  return z;
}

uint64_t alloc_bytes(DataType dtype, int64_t numel) {
  if (dtype == DataType::kString) return static_cast<uint64_t>(numel) * sizeof(std::string);
  return dtype_storage_bytes(dtype, numel);
}
}  // namespace

Tensor::Tensor(DataType dtype, std::vector<int64_t> dims)
    : dtype_(dtype), dims_(std::move(dims)), numel_(product(dtype_, dims_)) {
  charge_tensor(numel_, alloc_bytes(dtype_, numel_), dtype_name(dtype_), dims_);
  if (dtype_ == DataType::kString) {
    strings_.resize(static_cast<size_t>(numel()));
  } else {
    nbytes_ = dtype_storage_bytes(dtype_, numel());
    uint8_t* p = nullptr;
    buf_ = allocate_bytes(nbytes_, &p);
  }
}

Tensor Tensor::shell(DataType dtype, std::vector<int64_t> dims) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.numel_ = product(dtype, t.dims_);
  t.nbytes_ = dtype == DataType::kString ? 0 : dtype_storage_bytes(dtype, t.numel());
  return t;
}


uint8_t* Tensor::mutable_bytes() {
  // Sole owner of memory we may write (a vector we allocated, a writable region of the
  // scratch file): write in place. Otherwise copy first.
  if (buf_ && buf_.use_count() == 1 && offset_ == 0 && buf_->size() == nbytes_) {
    if (auto* vb = dynamic_cast<const VectorBuffer*>(buf_.get()))
      return const_cast<VectorBuffer*>(vb)->mutable_data();
    if (auto* zb = dynamic_cast<const ZeroedBuffer*>(buf_.get())) return zb->mutable_data();
    if (auto* mb = dynamic_cast<const MappedBuffer*>(buf_.get()))
      if (uint8_t* w = const_cast<MappedBuffer*>(mb)->writable_data()) return w;
  }
  charge_tensor(numel_, nbytes_, dtype_name(dtype_), dims_);
  uint8_t* p = nullptr;
  auto fresh = allocate_bytes(nbytes_, &p);
  if (nbytes_ != 0 && buf_) std::memcpy(p, bytes(), nbytes_);
  buf_ = std::move(fresh);
  offset_ = 0;
  return p;
}

bool Tensor::same_contents(const Tensor& o) const {
  if (dtype_ != o.dtype_ || dims_ != o.dims_) return false;
  if (dtype_ == DataType::kString) return strings_ == o.strings_;
  if (nbytes_ != o.nbytes_) return false;
  return nbytes_ == 0 || std::memcmp(bytes(), o.bytes(), nbytes_) == 0;
}

}  // namespace onnxtrim::ir
