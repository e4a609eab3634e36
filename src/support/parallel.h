// Splitting large, independent work over the machine's cores.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "support/platform.h"

namespace onnxtrim {

// Runs f(begin, end) over consecutive parts of [0, n) on up to `max_threads` threads (the
// calling thread takes the first part). Parts are multiples of `grain` except the last.
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& f, unsigned max_threads = 0) {
  unsigned hw = platform::hardware_threads();
  unsigned threads = std::min<unsigned>(max_threads ? max_threads : hw, 8);
  grain = std::max<int64_t>(grain, 1);
  int64_t chunks = (n + grain - 1) / grain;
  if (threads <= 1 || chunks <= 1) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  threads = static_cast<unsigned>(std::min<int64_t>(threads, chunks));
  int64_t per = (chunks + threads - 1) / threads * grain;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    int64_t b = per * t, e = std::min(n, per * (t + 1));
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  f(int64_t{0}, std::min(n, per));
  for (auto& th : pool) th.join();
}

}  // namespace onnxtrim
