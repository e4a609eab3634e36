// The softmax family: Softmax (normalized exponentials), LogSoftmax (their log) and Hardmax
// (one-hot of the first maximum) along an axis (2-D coercion before opset 13). What they share:
// the input seen as [outer, len, inner] around the axis (nn::softmax_layout), each row of `len`
// elements copied into a buffer of the computation type (float, double for double), mapped in
// place by the op's row function and written back; the output has the input's type and shape;
// versions 1, 11, 13; float types. They differ only in the row function.
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
// Row functions: `row` holds one row in the computation type CT.
// The row's maximum (-inf for an empty row), which Softmax and LogSoftmax subtract before exp.
template <typename CT>
CT softmax_row_max(const std::vector<CT>& row) {
  CT m = -std::numeric_limits<CT>::infinity();
  for (CT v : row) m = std::max(m, v);
  return m;
}
struct SoftmaxRow {
  template <typename CT>
  static void apply(std::vector<CT>& row) {
    CT m = softmax_row_max(row);
    CT s = 0;
    for (CT& v : row) {
      v = std::exp(v - m);
      s += v;
    }
    for (CT& v : row) v /= s;
  }
};
struct LogSoftmaxRow {
  template <typename CT>
  static void apply(std::vector<CT>& row) {
    CT m = softmax_row_max(row);
    CT s = 0;
    for (CT v : row) s += std::exp(v - m);
    CT ls = std::log(s);
    for (CT& v : row) v = v - m - ls;
  }
};
struct HardmaxRow {
  template <typename CT>
  static void apply(std::vector<CT>& row) {
    size_t best = 0;
    for (size_t i = 1; i < row.size(); ++i)
      if (row[i] > row[best]) best = i;
    for (size_t i = 0; i < row.size(); ++i) row[i] = i == best ? CT(1) : CT(0);
  }
};

template <typename Row>
Status eval_softmax_family(KernelContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (!ctx.has_input(0)) return ctx.error(op + " needs an input");
  const Tensor& x = ctx.input(0);
  nn::AxisLayout l;
  std::string err = nn::softmax_layout(ctx.node(), ctx.opset(), x.dims(), &l);
  if (!err.empty()) return ctx.error(op + ": " + err);
  Tensor y(x.dtype(), x.dims());
  bool ok = dispatch(x.dtype(), kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT = std::conditional_t<std::is_same_v<T, double>, double, float>;
    if (y.numel() == 0) return;
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    std::vector<CT> buf(static_cast<size_t>(l.len));
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t in = 0; in < l.inner; ++in) {
        int64_t base = o * l.len * l.inner + in;
        for (int64_t i = 0; i < l.len; ++i) buf[static_cast<size_t>(i)] = static_cast<CT>(px[base + i * l.inner]);
        Row::apply(buf);
        for (int64_t i = 0; i < l.len; ++i) py[base + i * l.inner] = T(buf[static_cast<size_t>(i)]);
      }
  });
  if (!ok) return ctx.error(op + " does not support element type " + std::string(ir::dtype_name(x.dtype())));
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: infer_same (ops/infer.h), the output has input 0's type and shape
// ---- registration (versions from Changelog.md)
// One row: versions 1, 11, 13, float types and the shape rule are the family's.
OpRegistration softmax_family_row(const char* op, EvalFn eval) {
  return {.op_type = op,
          .versions = {1, 11, 13},
          .eval = eval,
          .infer = infer_same,
          .signature = "T",
          .types = {{"T", kFloatTypes}}};
}
const OpRegistration kSoftmaxFamily[] = {
    softmax_family_row("Softmax", eval_softmax_family<SoftmaxRow>),
    softmax_family_row("LogSoftmax", eval_softmax_family<LogSoftmaxRow>),
    softmax_family_row("Hardmax", eval_softmax_family<HardmaxRow>),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(SoftmaxFamily, kSoftmaxFamily);

}  // namespace onnxtrim::ops
