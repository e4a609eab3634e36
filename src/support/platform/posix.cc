// The native side of the platform seam (src/support/platform.h): Linux mappings, fallocate,
// threads, OpenBLAS loaded with dlopen.
#include "support/platform.h"

#include <cblas.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>

namespace onnxtrim::platform {

unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }
bool threads_supported() { return true; }

uint64_t physical_memory() {
  static const uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : (uint64_t{1} << 36);
  }();
  return bytes;
}

size_t page_size() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

void* map_anonymous(size_t n, size_t* reserved) {
  constexpr size_t kHuge = size_t{2} << 20;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  if (n < 2 * kHuge) {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    *reserved = n;
    return p;
  }
  // Large buffers start on a huge-page boundary and ask for huge pages (where the kernel grants
  // them): a 100 MB folded weight then takes 50 page faults instead of 25,000.
  void* raw = mmap(nullptr, n + kHuge, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto a = reinterpret_cast<uintptr_t>(raw);
  uintptr_t b = (a + kHuge - 1) & ~(kHuge - 1);
  if (b > a) munmap(raw, b - a);
  size_t tail = (a + n + kHuge) - (b + n);
  size_t page = page_size();
  size_t len = (n + page - 1) / page * page;  // what stays mapped: whole pages from b
  if (tail > len - n) munmap(reinterpret_cast<void*>(b + len), tail - (len - n));
  void* p = reinterpret_cast<void*>(b);
  madvise(p, len, MADV_HUGEPAGE);
  *reserved = len;
  return p;
}

void unmap(void* p, size_t size) {
  if (p != nullptr && size != 0) munmap(p, size);
}

void* map_file_readonly(int fd, size_t n) {
  void* p = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void release_pages(const void* p, size_t n) {
  const size_t ps = page_size();
  auto start = reinterpret_cast<uintptr_t>(p);
  uintptr_t lo = (start + ps - 1) & ~(ps - 1);  // whole pages inside the range only
  uintptr_t hi = (start + n) & ~(ps - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

bool reserve_file(int fd, off_t off, off_t len) { return fallocate(fd, 0, off, len) == 0; }

void punch_hole(int fd, off_t off, off_t len) {
  (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);
}

ssize_t copy_file_range(int fd_in, off_t* off, int fd_out, size_t n) {
  loff_t o = static_cast<loff_t>(*off);
  ssize_t c = ::copy_file_range(fd_in, &o, fd_out, nullptr, n, 0);
  *off = static_cast<off_t>(o);
  return c;
}

void* map_file_shared(int fd, off_t off, size_t len) {
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
  return p == MAP_FAILED ? nullptr : p;
}

// OpenBLAS is loaded when a product first needs it, not with the program: binding its symbols
// took most of the process start (12,000 of 20,000 dynamic bindings, 5 ms), which every run paid,
// and most runs (a model without foldable products, --no-passes) never multiply.
namespace {
decltype(&cblas_sgemm) g_openblas_sgemm = nullptr;
decltype(&cblas_dgemm) g_openblas_dgemm = nullptr;

void openblas_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                    int ldb, float beta, float* c, int ldc) {
  g_openblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
                   lda, b, ldb, beta, c, ldc);
}
void openblas_dgemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
                    int ldb, double beta, double* c, int ldc) {
  g_openblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
                   lda, b, ldb, beta, c, ldc);
}
}  // namespace

const Blas& blas() {
  static const Blas b = [] {
    Blas r;
    void* h = nullptr;
    for (const char* name : {"libopenblas.so.0", ONNXTRIM_OPENBLAS_PATH})
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!h) return r;  // the portable kernel stands in (src/ops/nn/gemm_kernel.h)
    g_openblas_sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(h, "cblas_sgemm"));
    g_openblas_dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(dlsym(h, "cblas_dgemm"));
    // Single-threaded (its multithreaded SGEMM gave wrong results on this Debian build's Zen
    // kernels): large products are split by output columns over our own threads instead.
    if (auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"))) set_threads(1);
    // The pool OpenBLAS started when it was loaded spins (sched_yield) for about 0.1 s before it
    // sleeps: a core taken from the passes. Nothing will use it now. (Not in cblas.h.)
    if (auto shutdown = reinterpret_cast<void (*)()>(dlsym(h, "blas_thread_shutdown_"))) shutdown();
    if (!g_openblas_sgemm || !g_openblas_dgemm) return r;
    r.sgemm = openblas_sgemm;
    r.dgemm = openblas_dgemm;
    return r;
  }();
  return b;
}

namespace {

// VmHWM and VmRSS of /proc/self/status in bytes (-1 where a line is missing).
void read_vm(int64_t& hwm, int64_t& rss) {
  long long h = -1, r = -1;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      std::sscanf(line, "VmHWM: %lld kB", &h);
      std::sscanf(line, "VmRSS: %lld kB", &r);
    }
    std::fclose(f);
  }
  hwm = h < 0 ? -1 : h * 1024;
  rss = r < 0 ? -1 : r * 1024;
}

bool write_clear_refs() {
  int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  bool done = fd >= 0 && ::write(fd, "5", 1) == 1;
  if (fd >= 0) ::close(fd);
  return done;
}

// Whether writing 5 to clear_refs really brings VmHWM down to VmRSS. Some kernels (and sandboxes
// that emulate /proc) accept the write and keep the old peak: asked once, with 16 MB touched and
// unmapped so that the peak is known to stand above the resident set.
bool peak_reset_works() {
  static const bool works = [] {
    const size_t n = size_t{16} << 20;
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    std::memset(p, 1, n);
    ::munmap(p, n);
    int64_t hwm = -1, rss = -1;
    read_vm(hwm, rss);
    if (hwm < 0 || rss < 0 || !write_clear_refs()) return false;
    read_vm(hwm, rss);
    return hwm >= 0 && hwm < rss + static_cast<int64_t>(n / 2);
  }();
  return works;
}

}  // namespace

int64_t peak_resident_bytes(bool reset) {
  int64_t hwm = -1, rss = -1;
  read_vm(hwm, rss);
  if (reset) {
    // A peak that cannot be reset is not the stage's.
    if (!peak_reset_works() || !write_clear_refs()) return -1;
  }
  return hwm;
}

}  // namespace onnxtrim::platform
