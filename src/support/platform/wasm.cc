// The WebAssembly side of the platform seam (src/support/platform.h), for emscripten without
// pthreads: one thread, memory from the heap (MEMFS files are in memory already, and partial
// munmap of a mapping does not exist there), no scratch files, no BLAS.
#include "support/platform.h"

#include <errno.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace onnxtrim::platform {

unsigned hardware_threads() { return 1; }
bool threads_supported() { return false; }

// The module's heap ceiling (-sMAXIMUM_MEMORY=4GB, cmake/web.cmake).
uint64_t physical_memory() { return uint64_t{4} << 30; }
size_t page_size() { return 65536; }

void* map_anonymous(size_t n, size_t* reserved) {
  size_t len = (n + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, len);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, len);
  *reserved = len;
  return p;
}

void unmap(void* p, size_t) { std::free(p); }

void* map_file_readonly(int fd, size_t n) {
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(64, (n + 63) / 64 * 64));
  if (p == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  for (size_t done = 0; done < n;) {
    ssize_t r = ::pread(fd, p + done, n - done, static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      int e = r < 0 ? errno : EIO;
      std::free(p);
      errno = e;
      return nullptr;
    }
    done += static_cast<size_t>(r);
  }
  return p;
}

void release_pages(const void*, size_t) {}

bool reserve_file(int, off_t, off_t) { return false; }
void punch_hole(int, off_t, off_t) {}
ssize_t copy_file_range(int, off_t*, int, size_t) {
  errno = ENOSYS;
  return -1;
}
void* map_file_shared(int, off_t, size_t) { return nullptr; }

const Blas& blas() {
  static const Blas none;
  return none;
}

int64_t peak_resident_bytes(bool) { return -1; }  // not measured in the browser

}  // namespace onnxtrim::platform
