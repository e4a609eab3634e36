#include "ops/nn/nn_util.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include <algorithm>
#include <limits>

namespace onnxtrim::ops::nn {

namespace {
bool fits_blas(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }

template <typename T>
void gemm_fallback(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
                   int64_t ldb, T beta, T* C, int64_t ldc) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      T acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (ta ? A[k * lda + m] : A[m * lda + k]) * (tb ? B[n * ldb + k] : B[k * ldb + n]);
      T& c = C[m * ldc + n];
      c = alpha * acc + (beta == T(0) ? T(0) : beta * c);
    }
}
// OpenBLAS runs single-threaded (its multithreaded SGEMM gave wrong results on this Debian
// build's Zen kernels, and its idle threads spin); large products are split by output columns
// over our own threads instead, each calling the single-threaded BLAS.
void blas_single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

template <typename F>
void split_columns(int64_t M, int64_t N, int64_t K, F&& call) {
  blas_single_threaded();
  static const int64_t hw = std::max<int64_t>(1, std::min<int64_t>(8, std::thread::hardware_concurrency()));
  int64_t parts = M * N * K >= (int64_t{1} << 22) ? std::min<int64_t>(hw, N / 32) : 1;
  if (parts <= 1) {
    call(0, N);
    return;
  }
  std::vector<std::thread> workers;
  int64_t step = (N + parts - 1) / parts;
  for (int64_t p = 1; p < parts; ++p) {
    int64_t n0 = p * step, n1 = std::min(N, n0 + step);
    if (n0 < n1) workers.emplace_back([&call, n0, n1] { call(n0, n1); });
  }
  call(0, std::min(N, step));
  for (auto& w : workers) w.join();
}
}  // namespace

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
          int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) C[m * ldc + n] = beta == 0.f ? 0.f : beta * C[m * ldc + n];
    return;
  }
  if (!fits_blas(M) || !fits_blas(N) || !fits_blas(K) || !fits_blas(lda) || !fits_blas(ldb) || !fits_blas(ldc)) {
    gemm_fallback(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  split_columns(M, N, K, [&](int64_t n0, int64_t n1) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(M),
                static_cast<int>(n1 - n0), static_cast<int>(K), alpha, A, static_cast<int>(lda), tb ? B + n0 * ldb : B + n0,
                static_cast<int>(ldb), beta, C + n0, static_cast<int>(ldc));
  });
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) C[m * ldc + n] = beta == 0.0 ? 0.0 : beta * C[m * ldc + n];
    return;
  }
  if (!fits_blas(M) || !fits_blas(N) || !fits_blas(K) || !fits_blas(lda) || !fits_blas(ldb) || !fits_blas(ldc)) {
    gemm_fallback(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  split_columns(M, N, K, [&](int64_t n0, int64_t n1) {
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(M),
                static_cast<int>(n1 - n0), static_cast<int>(K), alpha, A, static_cast<int>(lda), tb ? B + n0 * ldb : B + n0,
                static_cast<int>(ldb), beta, C + n0, static_cast<int>(ldc));
  });
}

std::string plan_matmul(const Dims& a_in, const Dims& b_in, MatMulPlan* p) {
  if (a_in.empty() || b_in.empty()) return "MatMul operands must have rank >= 1";
  Dims a = a_in, b = b_in;
  bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  p->M = a[a.size() - 2];
  p->K = a[a.size() - 1];
  p->N = b[b.size() - 1];
  if (b[b.size() - 2] != p->K)
    return "MatMul inner dimensions differ: " + std::to_string(p->K) + " vs " + std::to_string(b[b.size() - 2]);
  Dims ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  auto batch = broadcast_shapes(ab, bb);
  if (!batch) return "MatMul batch dimensions do not broadcast";
  int64_t nb = numel_of(*batch);
  p->a_offsets.resize(static_cast<size_t>(nb));
  p->b_offsets.resize(static_cast<size_t>(nb));
  BroadcastIndex ia(ab, *batch), ib(bb, *batch);
  for (int64_t i = 0; i < nb; ++i) {
    p->a_offsets[static_cast<size_t>(i)] = ia.offset() * p->M * p->K;
    p->b_offsets[static_cast<size_t>(i)] = ib.offset() * p->K * p->N;
    ia.next();
    ib.next();
  }
  p->out_dims = *batch;
  if (!a1) p->out_dims.push_back(p->M);
  if (!b1) p->out_dims.push_back(p->N);
  return "";
}

Tensor to_float_tensor(const Tensor& t) {
  Tensor out(DataType::kFloat, t.dims());
  float* o = out.mutable_data<float>();
  int64_t n = t.numel();
  dispatch(t.dtype(), kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(p[i]);
  });
  return out;
}

Tensor from_float_tensor(const Tensor& t, DataType dtype) {
  if (dtype == DataType::kFloat) return t;
  Tensor out(dtype, t.dims());
  const float* p = t.data<float>();
  int64_t n = t.numel();
  dispatch(dtype, kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = T(p[i]);
  });
  return out;
}

std::string compute_geometry(const ir::Node& node, Geometry* g, bool ceil_mode) {
  auto nsp = static_cast<size_t>(g->nsp());
  if (g->kernel.size() != nsp) return "kernel rank does not match the input's spatial rank";
  g->strides = node.attr_ints("strides", Dims(nsp, 1));
  g->dilations = node.attr_ints("dilations", Dims(nsp, 1));
  if (g->strides.empty()) g->strides.assign(nsp, 1);
  if (g->dilations.empty()) g->dilations.assign(nsp, 1);
  if (g->strides.size() != nsp) return "strides has the wrong length";
  if (g->dilations.size() != nsp) return "dilations has the wrong length";
  for (size_t i = 0; i < nsp; ++i) {
    if (g->strides[i] <= 0) return "strides must be positive";
    if (g->dilations[i] <= 0) return "dilations must be positive";
    if (g->kernel[i] <= 0) return "kernel dims must be positive";
  }
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  g->pads.assign(2 * nsp, 0);
  g->out.assign(nsp, 0);
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    Dims pads = node.attr_ints("pads", Dims(2 * nsp, 0));
    if (pads.empty()) pads.assign(2 * nsp, 0);
    if (pads.size() != 2 * nsp) return "pads has the wrong length";
    for (int64_t p : pads)
      if (p < 0) return "pads must be non-negative";
    g->pads = pads;
  } else if (auto_pad == "VALID") {
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < nsp; ++i) {
      int64_t dk = (g->kernel[i] - 1) * g->dilations[i] + 1;
      int64_t out = (g->in[i] + g->strides[i] - 1) / g->strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * g->strides[i] + dk - g->in[i]);
      int64_t small = total / 2, big = total - total / 2;
      g->pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      g->pads[i + nsp] = auto_pad == "SAME_UPPER" ? big : small;
      g->out[i] = out;
    }
    return "";
  } else {
    return "unknown auto_pad value '" + auto_pad + "'";
  }
  for (size_t i = 0; i < nsp; ++i) {
    int64_t dk = (g->kernel[i] - 1) * g->dilations[i] + 1;
    int64_t span = g->in[i] + g->pads[i] + g->pads[i + nsp] - dk;
    if (span < 0) return "kernel is larger than the padded input";
    int64_t out = (ceil_mode ? (span + g->strides[i] - 1) / g->strides[i] : span / g->strides[i]) + 1;
    if (ceil_mode && (out - 1) * g->strides[i] >= g->in[i] + g->pads[i]) --out;
    g->out[i] = out;
  }
  return "";
}

std::string softmax_layout(const ir::Node& node, int64_t opset, const Dims& dims, AxisLayout* l) {
  auto rank = static_cast<int64_t>(dims.size());
  int64_t axis = node.attr_int("axis", opset < 13 ? 1 : -1);
  if (rank == 0) {
    if (axis != 0 && axis != -1) return "axis out of range for a scalar";
    *l = AxisLayout{};
    return "";
  }
  auto a = normalize_axis(axis, rank);
  // Before opset 13, axis == rank is accepted (everything goes to the outer factor).
  if (!a && !(opset < 13 && axis == rank)) return "axis " + std::to_string(axis) + " out of range";
  int64_t ax = a ? *a : rank;
  *l = AxisLayout{};
  for (int64_t i = 0; i < ax; ++i) l->outer *= dims[static_cast<size_t>(i)];
  if (opset < 13) {
    for (int64_t i = ax; i < rank; ++i) l->len *= dims[static_cast<size_t>(i)];
  } else {
    l->len = dims[static_cast<size_t>(ax)];
    for (int64_t i = ax + 1; i < rank; ++i) l->inner *= dims[static_cast<size_t>(i)];
  }
  return "";
}

std::vector<int32_t> to_int32(const Tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.numel()));
  dispatch(t.dtype(), kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int32_t>(p[i]);
  });
  return out;
}

bool per_axis_int(const Tensor* t, int64_t n, std::vector<int32_t>* out) {
  if (!t) {
    out->assign(static_cast<size_t>(n), 0);
    return true;
  }
  if (t->dtype() != DataType::kUint8 && t->dtype() != DataType::kInt8 && t->dtype() != DataType::kUint16 &&
      t->dtype() != DataType::kInt16 && t->dtype() != DataType::kInt32)
    return false;
  std::vector<int32_t> v = to_int32(*t);
  if (v.size() == 1) out->assign(static_cast<size_t>(n), v[0]);
  else if (static_cast<int64_t>(v.size()) == n) *out = v;
  else return false;
  return true;
}

bool per_axis_float(const Tensor& t, int64_t n, std::vector<float>* out) {
  if (t.dtype() != DataType::kFloat && t.dtype() != DataType::kFloat16 && t.dtype() != DataType::kBFloat16) return false;
  int64_t k = t.numel();
  if (k != 1 && k != n) return false;
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) (*out)[static_cast<size_t>(i)] = static_cast<float>(element_as_double(t, k == 1 ? 0 : i));
  return true;
}

int64_t saturate_round(double v, int64_t zero_point, DataType dtype) {
  double r = std::nearbyint(v);  // default rounding mode: half to even
  double lo = 0, hi = 0;
  switch (dtype) {
    case DataType::kUint8: lo = 0; hi = 255; break;
    case DataType::kInt8: lo = -128; hi = 127; break;
    case DataType::kUint16: lo = 0; hi = 65535; break;
    case DataType::kInt16: lo = -32768; hi = 32767; break;
    default: lo = -2147483648.0; hi = 2147483647.0; break;
  }
  double q = r + static_cast<double>(zero_point);
  if (std::isnan(q)) q = 0;
  return static_cast<int64_t>(std::min(hi, std::max(lo, q)));
}

std::vector<int32_t> conv_int32(const std::vector<int32_t>& x, const Dims& xdims, const std::vector<int32_t>& w,
                                const Dims& wdims, const Geometry& g, int64_t group) {
  int64_t N = xdims[0], C = xdims[1], M = wdims[0];
  int64_t Cg = C / group, Mg = M / group;
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out), ks = numel_of(g.kernel);
  std::vector<int32_t> y(static_cast<size_t>(N * M * out_size));
  std::vector<int32_t> col(static_cast<size_t>(Cg * ks * out_size));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < group; ++gi) {
      im2col<int32_t>(x.data() + (n * C + gi * Cg) * in_size, Cg, g, 0, col.data());
      gemm_loop<int32_t>(Mg, out_size, Cg * ks, w.data() + gi * Mg * Cg * ks, col.data(),
                         y.data() + (n * M + gi * Mg) * out_size);
    }
  return y;
}

std::vector<int32_t> matmul_int32(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zp,
                                  const std::vector<int32_t>& b_zp, const MatMulPlan& p) {
  std::vector<int32_t> av = to_int32(a), bv = to_int32(b);
  for (size_t i = 0; i < av.size(); ++i) av[i] -= a_zp[(i / static_cast<size_t>(p.K)) % static_cast<size_t>(p.M)];
  for (size_t i = 0; i < bv.size(); ++i) bv[i] -= b_zp[i % static_cast<size_t>(p.N)];
  int64_t mn = p.M * p.N;
  std::vector<int32_t> out(static_cast<size_t>(mn) * p.a_offsets.size());
  if (mn == 0) return out;
  for (size_t i = 0; i < p.a_offsets.size(); ++i)
    gemm_loop<int32_t>(p.M, p.N, p.K, av.data() + p.a_offsets[i], bv.data() + p.b_offsets[i],
                       out.data() + static_cast<int64_t>(i) * mn);
  return out;
}

}  // namespace onnxtrim::ops::nn
