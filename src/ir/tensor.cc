#include "ir/tensor.h"

#include "ir/mapped.h"
#include "ir/scratch.h"

#include <algorithm>
#include <new>

#include "support/limits.h"
#include "support/platform.h"

namespace onnxtrim::ir {

MmapBuffer::~MmapBuffer() { platform::unmap(base_, map_size_); }

std::shared_ptr<MmapBuffer> MmapBuffer::anonymous(size_t n) {
  if (n == 0) return std::make_shared<MmapBuffer>(nullptr, 0, 0, 0);
  size_t reserved = 0;
  void* p = platform::map_anonymous(n, &reserved);
  return std::make_shared<MmapBuffer>(p, reserved, 0, n);
}

namespace {
// The element count of dims; a count past int64 (or a negative dim) is refused here, before
// anything is allocated.
int64_t product(DataType dtype, const std::vector<int64_t>& dims) {
  int64_t n = checked_numel(dims);
  if (n < 0) charge_tensor(-1, 0, dtype_name(dtype), dims);
  return n;
}

// Zero-filled bytes: in the scratch file inside a ScratchScope (large sizes), else in memory.
// From 4 MB, memory is an anonymous mapping: its pages come zeroed when first written, where a
// vector would clear them all before the kernel writes them again, and it goes back to the
// system whole when the tensor dies.
constexpr size_t kAnonymousBytes = size_t{4} << 20;

std::shared_ptr<Buffer> allocate_bytes(size_t n, uint8_t** p) {
  if (n >= ScratchScope::threshold()) {
    if (auto b = scratch::allocate(n)) {
      *p = b->writable_data();
      return b;
    }
  }
  if (n >= kAnonymousBytes) {
    auto m = MmapBuffer::anonymous(n);
    *p = m->mutable_data();
    return m;
  }
  auto v = std::make_shared<VectorBuffer>(n);
  *p = v->mutable_data();
  return v;
}

// allocate_bytes as if the innermost ScratchScope had `threshold`.
std::shared_ptr<Buffer> allocate_bytes_at(size_t n, size_t threshold, uint8_t** p) {
  if (threshold == ScratchScope::threshold()) return allocate_bytes(n, p);
  ScratchScope scope(threshold);
  return allocate_bytes(n, p);
}

uint64_t alloc_bytes(DataType dtype, int64_t numel) {
  if (dtype == DataType::kString) return static_cast<uint64_t>(numel) * sizeof(std::string);
  return dtype_storage_bytes(dtype, numel);
}
}  // namespace

DeferredBuffer::DeferredBuffer(size_t size, size_t elem, Fill fill, Source source, size_t grain)
    : size_(size),
      elem_(std::max<size_t>(elem, 1)),
      grain_(grain && grain % elem_ == 0 ? grain : elem_),
      scratch_threshold_(ScratchScope::threshold()),
      fill_(std::make_shared<const Fill>(std::move(fill))),
      source_(std::move(source)) {}

const uint8_t* DeferredBuffer::data() const {
  std::call_once(once_, [&] {
    uint8_t* p = nullptr;
    whole_ = allocate_bytes_at(size_, scratch_threshold_, &p);
    std::shared_ptr<const Fill> f;
    {
      std::lock_guard<std::mutex> lock(mu_);
      f = fill_;
    }
    // In bands: bytes made in the scratch file leave memory band by band (a weight of an
    // LLM-sized model is never whole in memory).
    auto* mapped = dynamic_cast<const MappedBuffer*>(whole_.get());
    constexpr size_t kBand = size_t{32} << 20;
    const size_t unit = grain_ <= kBand ? grain_ : elem_;
    const size_t band = mapped ? kBand / unit * unit : size_;
    for (size_t off = 0; off < size_; off += band) {
      size_t n = std::min(band, size_ - off);
      (*f)(p + off, off, off + n);
      if (mapped) mapped->release(off, n);
    }
    made_.store(true, std::memory_order_release);
    std::lock_guard<std::mutex> lock(mu_);
    fill_.reset();  // what the recipe held (its source) can go
    source_ = Source{nullptr, 0, 0};
  });
  return whole_->data();
}

DeferredBuffer::Source DeferredBuffer::source() const {
  std::lock_guard<std::mutex> lock(mu_);
  return source_;
}

const Buffer* DeferredBuffer::resolved() const {
  return made_.load(std::memory_order_acquire) ? whole_->resolved() : this;
}

void DeferredBuffer::read(size_t off, size_t n, uint8_t* dst) const {
  if (n == 0) return;
  std::shared_ptr<const Fill> f;
  if (!made_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    f = fill_;
  }
  if (!f) {
    whole_->read(off, n, dst);
    return;
  }
  // Whole elements straight into dst; a partial element at either end through a small buffer.
  size_t a = (off + elem_ - 1) / elem_ * elem_, b = (off + n) / elem_ * elem_;
  if (a >= b) {  // within one element (or two partial ones)
    size_t lo = off / elem_ * elem_, hi = std::min(size_, (off + n + elem_ - 1) / elem_ * elem_);
    std::vector<uint8_t> tmp(hi - lo);
    (*f)(tmp.data(), lo, hi);
    std::memcpy(dst, tmp.data() + (off - lo), n);
    return;
  }
  if (a > off) {
    std::vector<uint8_t> tmp(elem_);
    (*f)(tmp.data(), a - elem_, a);
    std::memcpy(dst, tmp.data() + (off - (a - elem_)), a - off);
  }
  (*f)(dst + (a - off), a, b);
  if (off + n > b) {
    std::vector<uint8_t> tmp(elem_);
    (*f)(tmp.data(), b, b + elem_);
    std::memcpy(dst + (b - off), tmp.data(), off + n - b);
  }
}

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
    if (auto* vb = dynamic_cast<const VectorBuffer*>(buf_.get())) return const_cast<VectorBuffer*>(vb)->mutable_data();
    if (auto* mb = dynamic_cast<const MappedBuffer*>(buf_.get()))
      if (uint8_t* w = const_cast<MappedBuffer*>(mb)->writable_data()) return w;
    if (auto* ab = dynamic_cast<const MmapBuffer*>(buf_.get())) return const_cast<MmapBuffer*>(ab)->mutable_data();
    if (auto* db = dynamic_cast<const DeferredBuffer*>(buf_.get())) {
      // This tensor's alone: what the recipe makes becomes its buffer, written in place.
      buf_ = db->whole();
      return mutable_bytes();
    }
  }
  charge_tensor(numel_, nbytes_, dtype_name(dtype_), dims_);
  uint8_t* p = nullptr;
  auto fresh = allocate_bytes(nbytes_, &p);
  if (nbytes_ != 0 && buf_) std::memcpy(p, bytes(), nbytes_);
  buf_ = std::move(fresh);
  offset_ = 0;
  return p;
}

bool Tensor::scan(size_t elem, const std::function<bool(const uint8_t*, size_t)>& f) const {
  constexpr size_t kPiece = size_t{64} << 10;
  elem = std::max<size_t>(elem, 1);
  std::vector<uint8_t> tmp;
  size_t step = 16 * elem;
  for (size_t off = 0; off + elem <= nbytes_; off += step, step = std::min(kPiece / elem * elem, 2 * step)) {
    size_t n = std::min(step, nbytes_ - off) / elem * elem;
    if (!f(view(off, n, tmp), n)) return false;
  }
  return true;
}

bool Tensor::same_contents(const Tensor& o) const {
  if (dtype_ != o.dtype_ || dims_ != o.dims_) return false;
  if (dtype_ == DataType::kString) return strings_ == o.strings_;
  if (nbytes_ != o.nbytes_) return false;
  if (nbytes_ == 0) return true;
  if (deferred() || o.deferred()) {
    // A piece at a time: a deferred tensor is not made whole to be compared.
    constexpr size_t kPiece = size_t{1} << 20;
    std::vector<uint8_t> ta, tb;
    for (size_t off = 0; off < nbytes_; off += kPiece) {
      size_t n = std::min(kPiece, nbytes_ - off);
      if (std::memcmp(view(off, n, ta), o.view(off, n, tb), n) != 0) return false;
    }
    return true;
  }
  return std::memcmp(unaligned_bytes(), o.unaligned_bytes(), nbytes_) == 0;
}

}  // namespace onnxtrim::ir
