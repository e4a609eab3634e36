#include "support/limits.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "support/platform.h"

namespace onnxtrim {

namespace {
thread_local ScopedLimits* current = nullptr;

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}
}  // namespace

uint64_t physical_memory_bytes() { return platform::physical_memory(); }

std::string human_bytes(double b) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  char buf[48];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f %s", b, units[u]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

int64_t checked_numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > INT64_MAX / d) {
      // A zero dim later makes the tensor empty whatever the other dims are.
      for (int64_t e : dims)
        if (e == 0) return 0;
      return -1;
    }
    n *= d;
  }
  return n;
}

ScopedLimits::ScopedLimits(const EvalLimits& limits) : limits_(limits), outer_(current) { current = this; }
ScopedLimits::~ScopedLimits() { current = outer_; }

void check_tensor(int64_t numel, uint64_t bytes, std::string_view dtype, const std::vector<int64_t>& dims) {
  uint64_t cap = physical_memory_bytes();
  bool bounded_scope = false;
  for (ScopedLimits* s = current; s; s = s->outer_)
    if (s->limits_.max_tensor_bytes != 0) {
      cap = std::min(cap, s->limits_.max_tensor_bytes);
      bounded_scope = true;
    }
  auto fail = [&](const std::string& why) {
    for (ScopedLimits* s = current; s; s = s->outer_) s->exceeded_ = true;
    throw LimitExceeded(why);
  };
  std::string what = "a " + std::string(dtype) + " tensor of shape " + dims_text(dims);
  if (numel < 0) fail(what + " has more elements than can be counted");
  if (bytes > cap)
    fail(what + " would take " + human_bytes(static_cast<double>(bytes)) + ", more than the " +
         human_bytes(static_cast<double>(cap)) +
         (bounded_scope ? " one tensor may take here" : " of memory this machine has"));
}

void charge_tensor(int64_t numel, uint64_t bytes, std::string_view dtype, const std::vector<int64_t>& dims) {
  check_tensor(numel, bytes, dtype, dims);
  for (ScopedLimits* s = current; s; s = s->outer_) {
    s->total_bytes_ += bytes;
    if (s->limits_.max_total_bytes != 0 && s->total_bytes_ > s->limits_.max_total_bytes) {
      for (ScopedLimits* t = current; t; t = t->outer_) t->exceeded_ = true;
      throw LimitExceeded("a " + std::string(dtype) + " tensor of shape " + dims_text(dims) +
                          " would bring the tensors computed to more than " +
                          human_bytes(static_cast<double>(s->limits_.max_total_bytes)));
    }
  }
}

void charge_step() {
  for (ScopedLimits* s = current; s; s = s->outer_) {
    ++s->steps_;
    if (s->limits_.max_steps != 0 && s->steps_ > s->limits_.max_steps) {
      for (ScopedLimits* t = current; t; t = t->outer_) t->exceeded_ = true;
      throw LimitExceeded("the evaluation would run more than " + std::to_string(s->limits_.max_steps) + " nodes");
    }
  }
}

}  // namespace onnxtrim
