// Shared by the signal ops: a direct (O(n^2), double precision) discrete Fourier transform of
// complex sequences, the generalized cosine windows, and output stores.
#pragma once

#include <complex>
#include <vector>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::signal {

// X[k] = sum_n x[n] exp(-+2 pi i k n / len) for k < bins, over x zero-padded/truncated to len;
// inverse uses +i and divides by len.
std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x, int64_t len, int64_t bins,
                                      bool inverse);

// Window op (Hann/Hamming/Blackman): w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) with
// N = size (periodic) or size - 1 (symmetric).
Status eval_cosine_window(KernelContext& ctx, double a0, double a1, double a2);
Status infer_window(InferContext& ctx);

}  // namespace onnxtrim::ops::signal
