// Helpers shared by the nn family: GEMM (OpenBLAS for float/double, plain loops otherwise),
// batched matmul planning, convolution/pooling geometry, and im2col.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ops/kernel_util.h"

namespace onnxtrim::ops::nn {

// Row-major C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C. op transposes when the flag
// is set (A is then stored [K,M], B [N,K]). lda/ldb/ldc are row strides as stored. T is float
// or double (BLAS's sgemm or dgemm where there is one; nn_util.cc defines the two).
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc);

// Integer product that wraps around like two's complement (no UB on overflow).
template <typename T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return a * b;
  }
}
template <typename T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// Plain-loop matrix product for any arithmetic type (no transposes): C[M,N] = A[M,K] B[K,N].
template <typename T>
void gemm_loop(int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C) {
  for (int64_t i = 0; i < M * N; ++i) C[i] = T(0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      T a = A[m * K + k];
      const T* b = B + k * N;
      T* c = C + m * N;
      for (int64_t n = 0; n < N; ++n) c[n] = wrap_add(c[n], wrap_mul(a, b[n]));
    }
}

// Batched matmul with numpy semantics (1-D operands promoted and the extra axis removed,
// batch dims broadcast).
struct MatMulPlan {
  Dims out_dims;
  int64_t M = 0, K = 0, N = 0;
  std::vector<int64_t> a_offsets, b_offsets;  // per output batch, element offsets into A and B
};
// Returns an empty string on success, else the reason the shapes do not match.
std::string plan_matmul(const Dims& a, const Dims& b, MatMulPlan* plan);

// Tensor of float copied from a float16/bfloat16 tensor (and back).
Tensor to_float_tensor(const Tensor& t);
Tensor from_float_tensor(const Tensor& t, DataType dtype);

// How a kernel of the float types runs on dtype dt: float and double as they are, float16 and
// bfloat16 in float (the inputs widened, the result rounded back). kernel(TypeTag<T>{}, in) gets
// the inputs in T (an absent one, nullptr, stays nullptr) and returns the output in T. Returns
// false, leaving *out, when dt is not one of the four.
template <typename Kernel>
bool run_float_kernel(DataType dt, const std::vector<const Tensor*>& in, Kernel&& kernel, Tensor* out) {
  if (dt == DataType::kFloat) {
    *out = kernel(TypeTag<float>{}, in);
  } else if (dt == DataType::kDouble) {
    *out = kernel(TypeTag<double>{}, in);
  } else if (dt == DataType::kFloat16 || dt == DataType::kBFloat16) {
    std::vector<Tensor> widened(in.size());
    std::vector<const Tensor*> win(in.size(), nullptr);
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i]) {
        widened[i] = to_float_tensor(*in[i]);
        win[i] = &widened[i];
      }
    *out = from_float_tensor(kernel(TypeTag<float>{}, win), dt);
  } else {
    return false;
  }
  return true;
}

// Adds bias b[m] to every element of channel m of y [N, M, size].
template <typename T>
void add_channel_bias(T* y, const T* b, int64_t N, int64_t M, int64_t size) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      T* row = y + (n * M + m) * size;
      for (int64_t i = 0; i < size; ++i) row[i] += b[m];
    }
}

// ---------------------------------------------------------------- conv / pool geometry

struct Geometry {
  Dims in;      // spatial input dims
  Dims kernel;  // spatial kernel dims
  Dims strides, dilations;
  Dims pads;  // begin..., end...
  Dims out;   // spatial output dims
  int64_t nsp() const { return static_cast<int64_t>(in.size()); }
  // The output's dims: [n, channels, out...].
  Dims output_dims(int64_t n, int64_t channels) const {
    Dims d{n, channels};
    d.insert(d.end(), out.begin(), out.end());
    return d;
  }
};

// Fills strides/dilations/pads/out from the node's attributes (kernel and in already set).
// ceil_mode: pooling ceil rounding. Returns an error message or "".
std::string compute_geometry(const ir::Node& node, Geometry* g, bool ceil_mode);
// The inputs of Conv and ConvTranspose: X [N, C, in...] of rank >= 3, W of X's rank and the
// optional bias B (nullptr when absent), of one element type. Errors name the node's op.
Status conv_inputs(const KernelContext& ctx, const Tensor** x, const Tensor** w, const Tensor** b);
// The geometry of a convolution (Conv, ConvInteger, QLinearConv, DeformConv) of x [N, C, in...]
// by its weight w [M, C / group, kernel...]: kernel_shape, when given, must equal w's spatial
// dims (the error names the weight input `w_name`). Errors name the node's op.
Status conv_geometry(const KernelContext& ctx, const Tensor& x, const Tensor& w, const char* w_name, Geometry* g);
// The channels of an integer convolution (ConvInteger, QLinearConv) of x [N, C, in...] by w
// [M, C / group, kernel...]: x of rank >= 3, w of x's rank, the group attribute dividing C and
// M. Sets *group; errors name the node's op.
Status integer_conv_channels(const KernelContext& ctx, const Tensor& x, const Tensor& w, int64_t* group);
// The prelude of the windowed pools (AveragePool, LpPool, MaxPool): input 0 of rank >= 3, its
// kernel_shape, ceil_mode (read from opset `ceil_mode_since` on) and the geometry. Fills g and
// out_dims ([N, C, out...]); errors name the node's op.
Status pool_geometry(const KernelContext& ctx, int64_t ceil_mode_since, Geometry* g, Dims* out_dims);
// The order p of LpPool and GlobalLpPool: a float attribute before opset 2, an int from then on,
// positive.
Status pool_norm_order(const KernelContext& ctx, double* p);

// im2col for one image of one group: x holds [C, in...]; col gets [C * prod(kernel), prod(out)].
template <typename T>
void im2col(const T* x, int64_t C, const Geometry& g, T pad_value, T* col) {
  int64_t nsp = g.nsp();
  if (nsp == 2) {
    // 2-D: whole output rows at a time; stride-1 rows are contiguous copies.
    int64_t H = g.in[0], W = g.in[1], KH = g.kernel[0], KW = g.kernel[1], OH = g.out[0], OW = g.out[1];
    int64_t sh = g.strides[0], sw = g.strides[1], ph = g.pads[0], pw = g.pads[1], dh = g.dilations[0],
            dw = g.dilations[1];
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = x + c * H * W;
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          T* row = col + ((c * KH + kh) * KW + kw) * OH * OW;
          for (int64_t oh = 0; oh < OH; ++oh) {
            T* out = row + oh * OW;
            int64_t ih = oh * sh - ph + kh * dh;
            if (ih < 0 || ih >= H) {
              std::fill(out, out + OW, pad_value);
              continue;
            }
            const T* xr = xc + ih * W;
            int64_t iw0 = kw * dw - pw;
            for (int64_t ow = 0; ow < OW; ++ow) {
              int64_t iw = iw0 + ow * sw;
              out[ow] = iw >= 0 && iw < W ? xr[iw] : pad_value;
            }
          }
        }
    }
    return;
  }
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out), ksize = numel_of(g.kernel);
  std::vector<int64_t> kidx(static_cast<size_t>(nsp)), oidx(static_cast<size_t>(nsp));
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * in_size;
    for (int64_t k = 0; k < ksize; ++k) {
      int64_t r = k;
      for (int64_t d = nsp - 1; d >= 0; --d) {
        kidx[static_cast<size_t>(d)] = r % g.kernel[static_cast<size_t>(d)];
        r /= g.kernel[static_cast<size_t>(d)];
      }
      T* row = col + (c * ksize + k) * out_size;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t off = 0;
        bool inside = true;
        for (int64_t d = 0; d < nsp; ++d) {
          auto du = static_cast<size_t>(d);
          int64_t p = oidx[du] * g.strides[du] - g.pads[du] + kidx[du] * g.dilations[du];
          if (p < 0 || p >= g.in[du]) {
            inside = false;
            break;
          }
          off = off * g.in[du] + p;
        }
        row[o] = inside ? xc[off] : pad_value;
        for (int64_t d = nsp - 1; d >= 0; --d) {
          auto du = static_cast<size_t>(d);
          if (++oidx[du] < g.out[du]) break;
          oidx[du] = 0;
        }
      }
    }
  }
}

// Visits every pooling window: for image plane `plane` (n * C + c) and output position `o`
// (flat), calls begin(), then visit(spatial_offset, spatial_multi_index) for each in-bounds
// kernel position, then end(plane, o, padded_count) where padded_count counts the kernel
// positions that fall inside the padded input extent.
template <typename Begin, typename Visit, typename End>
void for_each_window(int64_t planes, const Geometry& g, Begin&& begin, Visit&& visit, End&& end) {
  int64_t nsp = g.nsp();
  int64_t out_size = numel_of(g.out), ksize = numel_of(g.kernel);
  std::vector<int64_t> oidx(static_cast<size_t>(nsp)), kidx(static_cast<size_t>(nsp)), pos(static_cast<size_t>(nsp));
  for (int64_t plane = 0; plane < planes; ++plane) {
    std::fill(oidx.begin(), oidx.end(), 0);
    for (int64_t o = 0; o < out_size; ++o) {
      begin();
      int64_t padded = 0;
      std::fill(kidx.begin(), kidx.end(), 0);
      for (int64_t k = 0; k < ksize; ++k) {
        bool inside = true, in_padded = true;
        int64_t off = 0;
        for (int64_t d = 0; d < nsp; ++d) {
          auto du = static_cast<size_t>(d);
          int64_t p = oidx[du] * g.strides[du] - g.pads[du] + kidx[du] * g.dilations[du];
          pos[du] = p;
          if (p < 0 || p >= g.in[du]) inside = false;
          if (p < -g.pads[du] || p >= g.in[du] + g.pads[du + static_cast<size_t>(nsp)]) in_padded = false;
          off = off * g.in[du] + p;
        }
        if (in_padded) ++padded;
        if (inside) visit(off, pos);
        for (int64_t d = nsp - 1; d >= 0; --d) {
          auto du = static_cast<size_t>(d);
          if (++kidx[du] < g.kernel[du]) break;
          kidx[du] = 0;
        }
      }
      end(plane, o, padded);
      for (int64_t d = nsp - 1; d >= 0; --d) {
        auto du = static_cast<size_t>(d);
        if (++oidx[du] < g.out[du]) break;
        oidx[du] = 0;
      }
    }
  }
}

// Softmax-family layout: the tensor seen as [outer, len, inner] around the reduced axis.
// Before opset 13 the input is coerced to 2-D at `axis` (inner = 1, len = prod(dims[axis:])).
struct AxisLayout {
  int64_t outer = 1, len = 1, inner = 1;
};
std::string softmax_layout(const ir::Node& node, int64_t opset, const Dims& dims, AxisLayout* l);

// ---------------------------------------------------------------- quantized helpers

// uint8 or int8: the element types of the integer and quantized convolutions and products.
inline bool is_8bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }
// Values of an 8-bit (or any integer) tensor as int32.
std::vector<int32_t> to_int32(const Tensor& t);
// Zero point / scale values: 1 element (per tensor) or `n` elements (per row/column/channel).
// Returns false when the count fits neither.
bool per_axis_int(const Tensor* t, int64_t n, std::vector<int32_t>* out);
bool per_axis_float(const Tensor& t, int64_t n, std::vector<float>* out);
// Rounds half to even and saturates into the range of dtype (uint8/int8/uint16/int16/int32).
int64_t saturate_round(double v, int64_t zero_point, DataType dtype);
// ---------------------------------------------------------------- exact integer products

// Runs task(i, worker) for i in [0, n) on up to min(8, hardware threads) threads; worker in
// [0, workers()) tells which per-thread scratch to use. BLAS calls inside stay single-threaded.
int64_t workers();
void parallel_tasks(int64_t n, const std::function<void(int64_t, int64_t)>& task);

// C[M,N] = A[M,K] B[K,N] of integer-valued float matrices (|A| <= max_a, |B| <= max_b,
// max_a * max_b <= 2^24), exactly as wrapping int32 arithmetic gives it. A float GEMM is exact
// while every partial sum is an integer of magnitude <= 2^24, whatever the order of summation
// or the use of FMA: K is cut into chunks of at most 2^24 / (max_a * max_b) terms (at least
// 258 for 8-bit operands with their zero points subtracted, |v| <= 255), each chunk one SGEMM,
// and the chunks' exact sums are added in int32. Single-threaded; scratch is reused.
void gemm_exact_int(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                    double max_a, double max_b, int32_t* C, int64_t ldc, std::vector<float>* scratch);

// Integer N-D grouped convolution of 8-bit x [N, C, in...] and w [M, C/group, k...] with their
// zero points subtracted (x_zp one value, w_zp one per output channel; padding reads x_zp):
// y [N, M, out...] exactly as wrapping int32 arithmetic gives it. im2col over tiles of output
// rows, gemm_exact_int, tiles spread over threads.
std::vector<int32_t> conv_integer(const Tensor& x, int32_t x_zp, const Tensor& w, const std::vector<int32_t>& w_zp,
                                  const Geometry& g, int64_t group);

// Batched integer matmul per `p` with per-row zero points of A (M values) and per-column zero
// points of B (N values) subtracted, exact (gemm_exact_int). Returns numel(out_dims) values.
std::vector<int32_t> matmul_integer(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zp,
                                    const std::vector<int32_t>& b_zp, const MatMulPlan& p);

}  // namespace onnxtrim::ops::nn
