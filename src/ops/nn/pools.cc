// The pools over (n, c) planes of an input [N, C, spatial...]. Two families:
// - GlobalAveragePool, GlobalMaxPool, GlobalLpPool: one value per plane, [N, C, 1, ...]. They
//   share the walk over the planes (accumulated in double, rounded once), the shape rule,
//   versions 1, (2,) 22 and the float types; each is a function of the plane's elements.
// - AveragePool and LpPool: one value per window. They share the prelude (kernel_shape, the
//   geometry: nn::pool_geometry), the walk over the windows (nn::for_each_window) and the shape
//   rule; each is an accumulator (begin, add an element inside the input, end with the count of
//   positions inside the padded input). MaxPool, with its Indices output and its fast path,
//   keeps its own file.
#include <cmath>
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_infer.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate: global pools
// apply(q, sp, p): the value of one plane q of sp elements (p: GlobalLpPool's order).
struct GlobalAveragePlane {
  static constexpr bool kNormOrder = false;
  template <typename T>
  static double apply(const T* q, int64_t sp, double) {
    double s = 0;
    for (int64_t i = 0; i < sp; ++i) s += static_cast<double>(q[i]);
    return sp ? s / static_cast<double>(sp) : std::numeric_limits<double>::quiet_NaN();
  }
};
// The first NaN wins; an empty plane is NaN.
struct GlobalMaxPlane {
  static constexpr bool kNormOrder = false;
  template <typename T>
  static double apply(const T* q, int64_t sp, double) {
    double m = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (int64_t i = 0; i < sp; ++i) {
      double v = static_cast<double>(q[i]);
      if (std::isnan(v)) {
        m = v;
        any = true;
        break;
      }
      if (!any || v > m) m = v;
      any = true;
    }
    return any ? m : std::numeric_limits<double>::quiet_NaN();
  }
};
struct GlobalLpPlane {
  static constexpr bool kNormOrder = true;
  template <typename T>
  static double apply(const T* q, int64_t sp, double p) {
    double s = 0;
    for (int64_t i = 0; i < sp; ++i) {
      double v = std::fabs(static_cast<double>(q[i]));
      s += p == 2 ? v * v : p == 1 ? v : std::pow(v, p);
    }
    return p == 2 ? std::sqrt(s) : p == 1 ? s : std::pow(s, 1.0 / p);
  }
};

template <typename Plane>
Status eval_global_pool(KernelContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (!ctx.has_input(0)) return ctx.error(op + " needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 3) return ctx.error(op + " input must have rank >= 3");
  double p = 0;
  if constexpr (Plane::kNormOrder) OT_RETURN_IF_ERROR(nn::pool_norm_order(ctx, &p));
  int64_t planes = x.dims()[0] * x.dims()[1];
  int64_t sp = 1;
  for (int64_t d = 2; d < x.rank(); ++d) sp *= x.dims()[static_cast<size_t>(d)];
  Dims out_dims(x.dims().begin(), x.dims().begin() + 2);
  out_dims.resize(x.dims().size(), 1);
  Tensor y(x.dtype(), out_dims);
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    for (int64_t pl = 0; pl < planes; ++pl) py[pl] = T(static_cast<compute_t<T>>(Plane::apply(px + pl * sp, sp, p)));
  });
  if (!ok) return ctx.error(op + " does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- evaluate: windowed pools
// A window pool: read(ctx) its attributes; Acc<T>(pool) one window's accumulator.
struct AveragePoolWindow {
  static constexpr int64_t kCeilModeSince = 10;
  bool include_pad = false;  // count_include_pad (from opset 7)
  Status read(const KernelContext& ctx) {
    include_pad = ctx.opset() >= 7 && ctx.node().attr_int("count_include_pad", 0) != 0;
    return Status::ok();
  }
  // Sums in float (double for double).
  template <typename T>
  struct Acc {
    using CT = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const AveragePoolWindow& pool;
    CT sum = 0;
    int64_t count = 0;
    explicit Acc(const AveragePoolWindow& w) : pool(w) {}
    void begin() {
      sum = 0;
      count = 0;
    }
    void add(T v) {
      sum += static_cast<CT>(v);
      ++count;
    }
    T end(int64_t padded) const {
      int64_t denom = pool.include_pad ? padded : count;
      return T(denom > 0 ? sum / static_cast<CT>(denom) : CT(0));
    }
  };
};
struct LpPoolWindow {
  static constexpr int64_t kCeilModeSince = 18;
  double p = 2;
  Status read(const KernelContext& ctx) { return nn::pool_norm_order(ctx, &p); }
  // Sums |v|^p in double.
  template <typename T>
  struct Acc {
    const double p;
    double sum = 0;
    explicit Acc(const LpPoolWindow& w) : p(w.p) {}
    void begin() { sum = 0; }
    void add(T x) {
      double v = std::fabs(static_cast<double>(x));
      sum += p == 2 ? v * v : p == 1 ? v : std::pow(v, p);
    }
    T end(int64_t) const {
      double r = p == 2 ? std::sqrt(sum) : p == 1 ? sum : std::pow(sum, 1.0 / p);
      return T(static_cast<compute_t<T>>(r));
    }
  };
};

template <typename Window>
Status eval_window_pool(KernelContext& ctx) {
  nn::Geometry g;
  Dims out_dims;
  OT_RETURN_IF_ERROR(nn::pool_geometry(ctx, Window::kCeilModeSince, &g, &out_dims));
  Window pool;
  OT_RETURN_IF_ERROR(pool.read(ctx));
  const Tensor& x = ctx.input(0);
  int64_t N = x.dims()[0], C = x.dims()[1];
  int64_t in_size = numel_of(g.in), out_size = numel_of(g.out);
  Tensor y(x.dtype(), out_dims);
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    typename Window::template Acc<T> acc(pool);
    const T* plane_ptr = px;
    nn::for_each_window(
        N * C, g, [&] { acc.begin(); }, [&](int64_t off, const std::vector<int64_t>&) { acc.add(plane_ptr[off]); },
        [&](int64_t plane, int64_t o, int64_t padded) {
          py[plane * out_size + o] = acc.end(padded);
          if (o == out_size - 1) plane_ptr = px + (plane + 1) * in_size;
        });
  });
  if (!ok)
    return ctx.error(ctx.node().op_type + " does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_global_pool(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<SymShape> out;
  if (x.shape && x.shape->size() >= 2) {
    out = SymShape{(*x.shape)[0], (*x.shape)[1]};
    for (size_t i = 2; i < x.shape->size(); ++i) out->push_back(Expr::constant(1));
  }
  ctx.output(0) = TypeInfo::tensor(x.elem, out);
  return Status::ok();
}

Status infer_window_pool(InferContext& ctx) {
  std::vector<int64_t> kernel = ctx.node().attr_ints("kernel_shape");
  OT_RETURN_IF_ERROR(nn::infer_conv_like(ctx, std::nullopt, kernel, ctx.node().attr_int("ceil_mode", 0) != 0));
  return Status::ok();
}

// ---- registration (versions from Changelog.md)
// One row: float types, one input.
OpRegistration pool_row(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer) {
  return {.op_type = op,
          .versions = std::move(versions),
          .eval = eval,
          .infer = infer,
          .signature = "T",
          .types = {{"T", kFloatTypes}}};
}
const OpRegistration kPools[] = {
    pool_row("GlobalAveragePool", {1, 22}, eval_global_pool<GlobalAveragePlane>, infer_global_pool),
    pool_row("GlobalMaxPool", {1, 22}, eval_global_pool<GlobalMaxPlane>, infer_global_pool),
    pool_row("GlobalLpPool", {1, 2, 22}, eval_global_pool<GlobalLpPlane>, infer_global_pool),
    pool_row("AveragePool", {1, 7, 10, 11, 19, 22}, eval_window_pool<AveragePoolWindow>, infer_window_pool),
    pool_row("LpPool", {1, 2, 11, 18, 22}, eval_window_pool<LpPoolWindow>, infer_window_pool),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Pools, kPools);

}  // namespace onnxtrim::ops
