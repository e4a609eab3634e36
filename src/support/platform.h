// The platform seam: what differs between the native build (Linux) and the WebAssembly build
// (emscripten, in a browser or Node). One side is compiled in, chosen by CMake:
// src/support/platform/posix.cc natively, src/support/platform/wasm.cc for the web build
// (cmake/web.cmake). The rest of the code calls these functions and knows neither.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace onnxtrim::platform {

// Threads. How many threads may run at once (1 where threads cannot be started at all).
unsigned hardware_threads();
// Whether std::thread can be started (false in a wasm module built without pthreads).
bool threads_supported();

// Memory. The system's physical memory in bytes (the wasm heap's 4 GB ceiling in the web build).
uint64_t physical_memory();
size_t page_size();

// n > 0 zeroed bytes for a large tensor, at least 64-byte aligned. Natively an anonymous
// mapping (from 4 MB on, huge-page aligned and advised); in wasm a heap block. `*reserved`
// receives the size to pass to unmap(). Throws std::bad_alloc.
void* map_anonymous(size_t n, size_t* reserved);
// Gives back what map_anonymous() or map_file_readonly() returned (size: the `reserved` or n).
void unmap(void* p, size_t size);
// The n > 0 bytes of the open file fd, read-only: natively a private mapping (pages read on
// demand), in wasm a heap copy. nullptr with errno set on failure.
void* map_file_readonly(int fd, size_t n);
// The pages wholly inside [p, p + n) of a read-only file mapping are not needed in memory for
// now (natively MADV_DONTNEED: they are read again from the file if touched; in wasm nothing).
void release_pages(const void* p, size_t n);

// Files. Reserves [off, off + len) of fd's blocks (fallocate); false where it cannot (in wasm
// always: scratch files then fall back to memory, which is where MEMFS would put them anyway).
bool reserve_file(int fd, off_t off, off_t len);
// Frees [off, off + len) of fd's blocks, keeping its size (FALLOC_FL_PUNCH_HOLE).
void punch_hole(int fd, off_t off, off_t len);
// Copies n bytes from fd_in at *off (advanced) to fd_out's position, in the kernel
// (copy_file_range): the bytes written, or -1 with errno set (ENOSYS in wasm: the caller
// writes from memory).
ssize_t copy_file_range(int fd_in, off_t* off, int fd_out, size_t n);
// A shared, writable mapping of [off, off + len) of fd (scratch tensors); nullptr on failure.
void* map_file_shared(int fd, off_t off, size_t len);

// BLAS: single-precision and double-precision GEMM, row-major (cblas_sgemm/cblas_dgemm's
// meaning), or nullptr where there is none (wasm: src/ops/nn/gemm_kernel.h stands in).
// Natively OpenBLAS, loaded on first use.
using SgemmFn = void (*)(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                         int ldb, float beta, float* c, int ldc);
using DgemmFn = void (*)(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
                         int ldb, double beta, double* c, int ldc);
struct Blas {
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
};
const Blas& blas();

// Profiling (--profile). The peak resident memory of the process in bytes since the last reset
// (natively VmHWM of /proc/self/status; a reset writes 5 to /proc/self/clear_refs); -1 where it
// cannot be measured (wasm, a kernel without those files, or one that accepts the write and keeps
// the old peak, as some sandboxes do).
int64_t peak_resident_bytes(bool reset);

}  // namespace onnxtrim::platform
