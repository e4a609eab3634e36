// Helpers of the RNN cells: gate pre-activations x W^T + h R^T + Wb + Rb for one gate block,
// and the optional clip.
#pragma once

#include <algorithm>
#include <cmath>

#include "ops/rnn/rnn_util.h"

namespace onnxtrim::ops::rnn {

// Gate block g of direction d: out[k] = sum_j x[j] W[g*H + k, j] + sum_j h[j] R[g*H + k, j]
// (+ biases Wb, Rb). `with_r` false leaves the recurrent part out (GRU's reset variant).
inline void gate(const Dims3& dm, const Weights& w, int64_t gates, int64_t d, int64_t g, const double* x,
                 const double* h, bool with_r, bool with_rb, double* out) {
  int64_t H = dm.hidden, I = dm.input;
  const double* W = &w.W[static_cast<size_t>(d * gates * H * I)];
  const double* R = &w.R[static_cast<size_t>(d * gates * H * H)];
  const double* B = &w.B[static_cast<size_t>(d * 2 * gates * H)];
  for (int64_t k = 0; k < H; ++k) {
    double acc = B[g * H + k] + (with_rb ? B[gates * H + g * H + k] : 0.0);
    for (int64_t j = 0; j < I; ++j) acc += x[j] * W[(g * H + k) * I + j];
    if (with_r)
      for (int64_t j = 0; j < H; ++j) acc += h[j] * R[(g * H + k) * H + j];
    out[k] = acc;
  }
}

inline double clip(double v, double c) { return c > 0 ? std::clamp(v, -c, c) : v; }

}  // namespace onnxtrim::ops::rnn
