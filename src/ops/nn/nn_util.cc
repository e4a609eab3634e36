#include "ops/nn/nn_util.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

#include "ops/nn/gemm_kernel.h"
#include "support/platform.h"

namespace onnxtrim::ops::nn {

namespace {
bool fits_blas(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }
// BLAS through the platform seam: OpenBLAS natively, none in the web build (the portable
// kernel of gemm_kernel.h stands in).
const platform::Blas& blas() { return platform::blas(); }
// BLAS's GEMM of T, float (sgemm) or double (dgemm); nullptr where there is none.
template <typename T>
auto blas_gemm() {
  if constexpr (std::is_same_v<T, float>) return blas().sgemm;
  else return blas().dgemm;
}
}  // namespace

namespace {

template <typename F>
void split_columns(int64_t M, int64_t N, int64_t K, F&& call) {
  static const int64_t hw = std::max<int64_t>(1, std::min<int64_t>(8, platform::hardware_threads()));
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

template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb,
          T beta, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) C[m * ldc + n] = beta == T(0) ? T(0) : beta * C[m * ldc + n];
    return;
  }
  // BLAS (sgemm or dgemm), split over threads by columns, when there is one and every size fits
  // its int arguments; else the portable kernel of gemm_kernel.h.
  auto blas_fn = blas_gemm<T>();
  if (!blas_fn || !fits_blas(M) || !fits_blas(N) || !fits_blas(K) || !fits_blas(lda) || !fits_blas(ldb) ||
      !fits_blas(ldc)) {
    gemm_kernel(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  split_columns(M, N, K, [&](int64_t n0, int64_t n1) {
    blas_fn(ta, tb, static_cast<int>(M), static_cast<int>(n1 - n0), static_cast<int>(K), alpha, A,
            static_cast<int>(lda), tb ? B + n0 * ldb : B + n0, static_cast<int>(ldb), beta, C + n0,
            static_cast<int>(ldc));
  });
}
template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t,
                          float, float*, int64_t);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);

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

Status conv_inputs(const KernelContext& ctx, const Tensor** x, const Tensor** w, const Tensor** b) {
  const std::string& op = ctx.node().op_type;
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error(op + " needs inputs X and W");
  *x = &ctx.input(0);
  *w = &ctx.input(1);
  *b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if ((*x)->rank() < 3) return ctx.error(op + " input X must have rank >= 3");
  if ((*w)->rank() != (*x)->rank()) return ctx.error(op + " weight W must have the rank of X");
  if ((*x)->dtype() != (*w)->dtype() || (*b && (*b)->dtype() != (*x)->dtype()))
    return ctx.error(op + " inputs have different element types");
  return Status::ok();
}

Status conv_geometry(const KernelContext& ctx, const Tensor& x, const Tensor& w, const char* w_name, Geometry* g) {
  const std::string& op = ctx.node().op_type;
  g->in.assign(x.dims().begin() + 2, x.dims().end());
  g->kernel.assign(w.dims().begin() + 2, w.dims().end());
  Dims ks = ctx.node().attr_ints("kernel_shape");
  if (!ks.empty() && ks != g->kernel) return ctx.error(op + " kernel_shape does not match " + w_name);
  std::string err = compute_geometry(ctx.node(), g, false);
  if (!err.empty()) return ctx.error(op + ": " + err);
  return Status::ok();
}

Status integer_conv_channels(const KernelContext& ctx, const Tensor& x, const Tensor& w, int64_t* group) {
  const std::string& op = ctx.node().op_type;
  if (x.rank() < 3 || w.rank() != x.rank()) return ctx.error(op + " x must have rank >= 3 and w the same rank");
  *group = ctx.node().attr_int("group", 1);
  int64_t C = x.dims()[1], M = w.dims()[0];
  if (*group <= 0 || C % *group != 0 || M % *group != 0 || w.dims()[1] != C / *group)
    return ctx.error(op + " channel counts do not match group");
  return Status::ok();
}

Status pool_geometry(const KernelContext& ctx, int64_t ceil_mode_since, Geometry* g, Dims* out_dims) {
  const ir::Node& node = ctx.node();
  const std::string& op = node.op_type;
  if (!ctx.has_input(0)) return ctx.error(op + " needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 3) return ctx.error(op + " input must have rank >= 3");
  g->in.assign(x.dims().begin() + 2, x.dims().end());
  g->kernel = node.attr_ints("kernel_shape");
  if (g->kernel.empty()) return ctx.error(op + " requires kernel_shape");
  bool ceil_mode = ctx.opset() >= ceil_mode_since && node.attr_int("ceil_mode", 0) != 0;
  std::string err = compute_geometry(node, g, ceil_mode);
  if (!err.empty()) return ctx.error(op + ": " + err);
  *out_dims = g->output_dims(x.dims()[0], x.dims()[1]);
  return Status::ok();
}

Status pool_norm_order(const KernelContext& ctx, double* p) {
  const ir::Node& node = ctx.node();
  *p = ctx.opset() < 2 ? static_cast<double>(node.attr_float("p", 2.f)) : static_cast<double>(node.attr_int("p", 2));
  if (*p <= 0) return ctx.error(node.op_type + " p must be positive");
  return Status::ok();
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
  if (t.dtype() != DataType::kFloat && t.dtype() != DataType::kFloat16 && t.dtype() != DataType::kBFloat16)
    return false;
  int64_t k = t.numel();
  if (k != 1 && k != n) return false;
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    (*out)[static_cast<size_t>(i)] = static_cast<float>(element_as_double(t, k == 1 ? 0 : i));
  return true;
}

int64_t saturate_round(double v, int64_t zero_point, DataType dtype) {
  double r = std::nearbyint(v);  // default rounding mode: half to even
  // The range of dtype: uint8, int8, uint16, int16; int32 for any other.
  bool narrow8 = dtype == DataType::kUint8 || dtype == DataType::kInt8;
  bool narrow16 = dtype == DataType::kUint16 || dtype == DataType::kInt16;
  int bits = narrow8 ? 8 : narrow16 ? 16 : 32;
  bool sgn = dtype != DataType::kUint8 && dtype != DataType::kUint16;
  double lo = sgn ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = sgn ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  double q = r + static_cast<double>(zero_point);
  if (std::isnan(q)) q = 0;
  return static_cast<int64_t>(std::min(hi, std::max(lo, q)));
}

int64_t workers() {
  static const int64_t hw = std::max<int64_t>(1, std::min<int64_t>(8, platform::hardware_threads()));
  return hw;
}

void parallel_tasks(int64_t n, const std::function<void(int64_t, int64_t)>& task) {
  blas();  // loaded (and its pool stopped) before our threads call it
  int64_t w = std::min(workers(), n);
  if (w <= 1) {
    for (int64_t i = 0; i < n; ++i) task(i, 0);
    return;
  }
  std::atomic<int64_t> next{0};
  auto run = [&](int64_t worker) {
    for (int64_t i = next++; i < n; i = next++) task(i, worker);
  };
  std::vector<std::thread> threads;
  for (int64_t k = 1; k < w; ++k) threads.emplace_back(run, k);
  run(0);
  for (auto& t : threads) t.join();
}

void gemm_exact_int(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                    double max_a, double max_b, int32_t* C, int64_t ldc, std::vector<float>* scratch) {
  if (M == 0 || N == 0) return;
  double bound = max_a * max_b;
  if (K == 0 || bound == 0) {
    for (int64_t m = 0; m < M; ++m) std::fill(C + m * ldc, C + m * ldc + N, 0);
    return;
  }
  constexpr double kExact = 16777216.0;  // 2^24: every integer up to it is a float
  assert(bound <= kExact);
  auto chunk = static_cast<int64_t>(std::min<double>(static_cast<double>(K), std::floor(kExact / bound)));
  if (!blas().sgemm || !fits_blas(M) || !fits_blas(N) || !fits_blas(chunk) || !fits_blas(lda) || !fits_blas(ldb)) {
    // Beyond BLAS's int sizes (or without BLAS): exact sums in int64, wrapped to int32.
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += static_cast<int64_t>(A[m * lda + k]) * static_cast<int64_t>(B[k * ldb + n]);
        C[m * ldc + n] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc)));
      }
    return;
  }
  scratch->resize(static_cast<size_t>(M * N));
  float* T = scratch->data();
  for (int64_t k0 = 0; k0 < K; k0 += chunk) {
    int64_t kn = std::min(chunk, K - k0);
    blas().sgemm(false, false, static_cast<int>(M), static_cast<int>(N), static_cast<int>(kn), 1.0f, A + k0,
                 static_cast<int>(lda), B + k0 * ldb, static_cast<int>(ldb), 0.0f, T, static_cast<int>(N));
    for (int64_t m = 0; m < M; ++m) {
      const float* t = T + m * N;
      int32_t* c = C + m * ldc;
      if (k0 == 0) {
        for (int64_t n = 0; n < N; ++n) c[n] = static_cast<int32_t>(t[n]);
      } else {
        for (int64_t n = 0; n < N; ++n) c[n] = wrap_add(c[n], static_cast<int32_t>(t[n]));
      }
    }
  }
}

namespace {
// Values of an integer tensor minus per-block zero points, as floats; returns max |value|.
// zp[(i / block) % zp.size()] applies to element i.
double subtract_zero_points(const Tensor& t, const std::vector<int32_t>& zp, int64_t block, std::vector<float>* out) {
  auto n = static_cast<size_t>(t.numel());
  out->resize(n);
  float* o = out->data();
  float hi = 0;
  bool one = std::all_of(zp.begin(), zp.end(), [&](int32_t z) { return z == zp[0]; });
  dispatch(t.dtype(), kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    if (one) {
      auto z = static_cast<float>(zp[0]);
      for (size_t i = 0; i < n; ++i) o[i] = static_cast<float>(p[i]) - z;
    } else {
      auto b = static_cast<size_t>(block), nz = zp.size();
      for (size_t i = 0; i < n; ++i) o[i] = static_cast<float>(p[i]) - static_cast<float>(zp[(i / b) % nz]);
    }
  });
  for (size_t i = 0; i < n; ++i) hi = std::max(hi, std::fabs(o[i]));
  return hi;
}
}  // namespace

std::vector<int32_t> conv_integer(const Tensor& x, int32_t x_zp, const Tensor& w, const std::vector<int32_t>& w_zp,
                                  const Geometry& g, int64_t group) {
  const Dims& xd = x.dims();
  int64_t N = xd[0], C = xd[1], M = w.dims()[0];
  int64_t Cg = C / group, Mg = M / group;
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out), ks = numel_of(g.kernel), K = Cg * ks;
  std::vector<int32_t> y(static_cast<size_t>(N * M * out_size));
  if (y.empty()) return y;
  std::vector<float> xf, wf;
  // Padding reads the zero point: 0 once it is subtracted.
  double max_x = subtract_zero_points(x, {x_zp}, 1, &xf);
  double max_w = subtract_zero_points(w, w_zp, std::max<int64_t>(K, 1), &wf);
  bool pointwise = ks == 1 && in_size == out_size;
  for (size_t d = 0; d < g.strides.size() && pointwise; ++d)
    pointwise = g.strides[d] == 1 && g.pads[d] == 0 && g.pads[d + g.strides.size()] == 0;
  // Tiles of whole rows of the first spatial axis (im2col of a row range is im2col with the
  // begin pad shifted), about 1M floats of columns each.
  int64_t rows = g.out[0], row_size = out_size / std::max<int64_t>(rows, 1);
  int64_t per_tile =
      std::clamp<int64_t>((int64_t{1} << 20) / std::max<int64_t>(K * row_size, 1), 1, std::max<int64_t>(rows, 1));
  int64_t tiles = (rows + per_tile - 1) / per_tile;
  std::vector<std::vector<float>> col(static_cast<size_t>(workers())), scratch(static_cast<size_t>(workers()));
  parallel_tasks(N * group * tiles, [&](int64_t task, int64_t worker) {
    int64_t tile = task % tiles, gi = (task / tiles) % group, n = task / (tiles * group);
    int64_t r0 = tile * per_tile, r1 = std::min(rows, r0 + per_tile);
    int64_t c0 = r0 * row_size, cols = (r1 - r0) * row_size;
    const float* xg = xf.data() + (n * C + gi * Cg) * in_size;
    const float* B = xg + c0;
    int64_t ldb = out_size;
    if (!pointwise) {
      Geometry sub = g;
      sub.out[0] = r1 - r0;
      sub.pads[0] = g.pads[0] - r0 * g.strides[0];
      std::vector<float>& c = col[static_cast<size_t>(worker)];
      c.resize(static_cast<size_t>(K * cols));
      im2col<float>(xg, Cg, sub, 0.0f, c.data());
      B = c.data();
      ldb = cols;
    }
    gemm_exact_int(Mg, cols, K, wf.data() + gi * Mg * K, K, B, ldb, max_w, max_x,
                   y.data() + (n * M + gi * Mg) * out_size + c0, out_size, &scratch[static_cast<size_t>(worker)]);
  });
  return y;
}

std::vector<int32_t> matmul_integer(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zp,
                                    const std::vector<int32_t>& b_zp, const MatMulPlan& p) {
  int64_t mn = p.M * p.N;
  std::vector<int32_t> out(static_cast<size_t>(mn) * p.a_offsets.size());
  if (out.empty()) return out;
  std::vector<float> af, bf;
  // A's zero points go by row (blocks of K elements), B's by column (blocks of 1, cycling N).
  double max_a = subtract_zero_points(a, a_zp, std::max<int64_t>(p.K, 1), &af);
  double max_b = subtract_zero_points(b, b_zp, 1, &bf);
  // Row blocks of A: enough tasks for the threads, each a sizeable GEMM.
  int64_t rows = std::max<int64_t>(64, (int64_t{1} << 18) / std::max<int64_t>(p.N + p.K, 1));
  int64_t blocks = (p.M + rows - 1) / rows;
  std::vector<std::vector<float>> scratch(static_cast<size_t>(workers()));
  parallel_tasks(static_cast<int64_t>(p.a_offsets.size()) * blocks, [&](int64_t task, int64_t worker) {
    auto i = static_cast<size_t>(task / blocks);
    int64_t m0 = (task % blocks) * rows, m1 = std::min(p.M, m0 + rows);
    gemm_exact_int(m1 - m0, p.N, p.K, af.data() + p.a_offsets[i] + m0 * p.K, p.K, bf.data() + p.b_offsets[i], p.N,
                   max_a, max_b, out.data() + static_cast<int64_t>(i) * mn + m0 * p.N, p.N,
                   &scratch[static_cast<size_t>(worker)]);
  });
  return out;
}

}  // namespace onnxtrim::ops::nn
