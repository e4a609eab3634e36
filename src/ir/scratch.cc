#include "ir/scratch.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "support/platform.h"

namespace onnxtrim::ir {

namespace {
size_t page_size() { return platform::page_size(); }
}  // namespace

namespace scratch {
namespace {

struct State {
  std::mutex mu;
  std::string dir;
  bool tried = false;
  std::shared_ptr<FileOrigin> origin;  // the scratch file (no name; its descriptor)
  bool named = false;                  // O_TMPFILE: it can be given a name (detach)
  uint64_t end = 0;                    // allocated size of the file
  uint64_t in_use = 0;
  std::vector<std::weak_ptr<MappedBuffer>> live;  // regions handed out (detach makes them read-only)
};

// The state of the scratch file allocations go to: the thread's run (a Session) or the
// process's default. Buffers keep their state alive (they give their region back to it).
std::shared_ptr<State>& global_state() {
  static auto* s = new std::shared_ptr<State>(std::make_shared<State>());  // never destroyed
  return *s;
}
thread_local std::shared_ptr<State> tls_state;

std::shared_ptr<State> state_ptr() { return tls_state ? tls_state : global_state(); }

std::shared_ptr<FileOrigin> open_in(const std::string& dir, bool& tmpfile) {
  if (dir.empty()) return nullptr;
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  tmpfile = fd >= 0;
  if (fd < 0) {
    std::string pattern = dir + "/.onnxtrim-scratch-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    fd = mkostemp(buf.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(buf.data());
  }
  if (fd < 0) return nullptr;
  // The descriptor lives as long as the last buffer mapped from the file.
  return std::shared_ptr<FileOrigin>(new FileOrigin{"", 0, 0, fd}, [](FileOrigin* o) {
    ::close(o->fd);
    delete o;
  });
}

void give_back(State& s, const FileOrigin* origin, uint64_t off, uint64_t len) {
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.origin.get() != origin) return;  // detached: the region belongs to a saved file now
  s.in_use -= len;
  // Frees the blocks and drops the pages without writing them back.
  platform::punch_hole(origin->fd, static_cast<off_t>(off), static_cast<off_t>(len));
  if (s.in_use == 0 && ftruncate(origin->fd, 0) == 0) s.end = 0;
}

}  // namespace

void set_directory(const std::string& dir) {
  auto sp = state_ptr();
  State& s = *sp;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.dir == dir) return;
  s.dir = dir;
  if (s.in_use == 0) {  // a new folder is used from the next allocation on
    s.origin.reset();
    s.tried = false;
    s.end = 0;
  }
}

std::shared_ptr<MappedBuffer> allocate(size_t n) {
  if (n == 0) return nullptr;
  auto sp = state_ptr();
  State& s = *sp;
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.origin) {
    if (s.tried) return nullptr;
    s.tried = true;
    const char* tmp = std::getenv("TMPDIR");
    for (const std::string& d : {s.dir, std::string(tmp ? tmp : ""), std::string("/tmp")}) {
      s.origin = open_in(d, s.named);
      if (s.origin) break;
    }
    if (!s.origin) return nullptr;
    s.end = 0;
    s.in_use = 0;
  }
  const uint64_t ps = page_size();
  uint64_t len = (n + ps - 1) & ~(ps - 1);
  uint64_t off = s.end;
  int fd = s.origin->fd;
  // Reserve the blocks now: a full disk is a fallback to the heap here, not a SIGBUS later.
  if (!platform::reserve_file(fd, static_cast<off_t>(off), static_cast<off_t>(len))) return nullptr;
  void* p = platform::map_file_shared(fd, static_cast<off_t>(off), len);
  if (p == nullptr) {
    platform::punch_hole(fd, static_cast<off_t>(off), static_cast<off_t>(len));
    return nullptr;
  }
  // The pages are faulted in as they are written (front to back, they come in large batches
  // from the kernel's readahead): faulting them all in here would hold the whole tensor in
  // memory, and MADV_POPULATE_WRITE over fallocated blocks was 10x slower on ext4.
  s.end = off + len;
  s.in_use += len;
  auto buf = std::make_shared<MappedBuffer>(p, len, n, s.origin, off, true);
  const FileOrigin* origin = s.origin.get();
  buf->on_unmap([sp, origin, off, len] { give_back(*sp, origin, off, len); });
  std::erase_if(s.live, [](const std::weak_ptr<MappedBuffer>& w) { return w.expired(); });
  s.live.push_back(buf);
  return buf;
}

uint64_t bytes_in_use() {
  auto sp = state_ptr();
  State& s = *sp;
  std::lock_guard<std::mutex> lock(s.mu);
  return s.in_use;
}

Current current() {
  auto sp = state_ptr();
  State& s = *sp;
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.origin || !s.named || s.in_use == 0) return {};
  return {s.origin, s.end};
}

void detach(const FileOrigin* origin) {
  auto sp = state_ptr();
  State& s = *sp;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.origin.get() != origin) return;
  for (const auto& w : s.live)
    if (auto b = w.lock()) b->set_writable(false);
  s.live.clear();
  s.origin.reset();
  s.tried = false;
  s.end = 0;
  s.in_use = 0;
}

Session::Session(const std::string& dir) : prev_(tls_state) {
  auto s = std::make_shared<State>();
  s->dir = dir;
  tls_state = std::move(s);
}
Session::~Session() { tls_state = std::static_pointer_cast<State>(prev_); }

}  // namespace scratch

namespace {
thread_local size_t tls_scratch_threshold = SIZE_MAX;
}  // namespace

ScratchScope::ScratchScope(size_t threshold) : prev_(tls_scratch_threshold) {
  tls_scratch_threshold = std::min(threshold, prev_);
}
ScratchScope::~ScratchScope() { tls_scratch_threshold = prev_; }
size_t ScratchScope::threshold() { return tls_scratch_threshold; }

}  // namespace onnxtrim::ir
