// Cancellation: the public API points the calling thread at the caller's flag for the length
// of a call; the pass manager and the interpreter poll it between passes and between nodes and
// stop with ErrorCode::kInterrupted (Ctrl-C in Python, a host program's stop button).
#pragma once

#include <atomic>

namespace onnxtrim::support {

inline const std::atomic<bool>*& cancel_flag() {
  thread_local const std::atomic<bool>* flag = nullptr;
  return flag;
}

inline bool cancelled() {
  const std::atomic<bool>* f = cancel_flag();
  return f != nullptr && f->load(std::memory_order_relaxed);
}

class CancelScope {
 public:
  explicit CancelScope(const std::atomic<bool>* f) : prev_(cancel_flag()) {
    if (f) cancel_flag() = f;
  }
  ~CancelScope() { cancel_flag() = prev_; }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const std::atomic<bool>* prev_;
};

}  // namespace onnxtrim::support
