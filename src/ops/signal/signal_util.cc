#include "ops/signal/signal_util.h"

#include <cmath>

namespace onnxtrim::ops::signal {

std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x, int64_t len, int64_t bins,
                                      bool inverse) {
  std::vector<std::complex<double>> out(static_cast<size_t>(bins));
  double sign = inverse ? 1.0 : -1.0;
  int64_t n_in = std::min<int64_t>(len, static_cast<int64_t>(x.size()));
  for (int64_t k = 0; k < bins; ++k) {
    std::complex<double> acc = 0;
    for (int64_t n = 0; n < n_in; ++n) {
      // Reduce k n modulo len first: exact angles for long sequences.
      double ang = sign * 2.0 * M_PI * static_cast<double>((k * n) % len) / static_cast<double>(len);
      acc += x[static_cast<size_t>(n)] * std::complex<double>(std::cos(ang), std::sin(ang));
    }
    out[static_cast<size_t>(k)] = inverse ? acc / static_cast<double>(len) : acc;
  }
  return out;
}

Status eval_cosine_window(KernelContext& ctx, double a0, double a1, double a2) {
  const std::string& op = ctx.node().op_type;
  if (!ctx.has_input(0) || ctx.input(0).numel() != 1) return ctx.error(op + " needs a scalar size");
  int64_t size = to_int64_vector(ctx.input(0))[0];
  if (size < 0) return ctx.error(op + " size must be >= 0");
  auto dt = static_cast<DataType>(ctx.node().attr_int("output_datatype", 1));
  bool periodic = ctx.node().attr_int("periodic", 1) != 0;
  Tensor y(dt, {size});
  double N = static_cast<double>(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    double x = N > 0 ? static_cast<double>(n) / N : 0.0;
    // A symmetric window of one point is [1] (the formula would divide 0 by 0).
    double v = N > 0 ? a0 - a1 * std::cos(2 * M_PI * x) + a2 * std::cos(4 * M_PI * x) : 1.0;
    if (ir::dtype_is_float(dt)) store_double(y, n, v);
    else if (!dispatch(dt, kSigned | kUnsigned, [&](auto tag) {
               using T = typename decltype(tag)::type;
               y.mutable_data<T>()[n] = static_cast<T>(v);
             }))
      return ctx.error(op + " output_datatype is not a numeric type");
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

Status infer_window(InferContext& ctx) {
  auto dt = static_cast<DataType>(ctx.node().attr_int("output_datatype", 1));
  const auto& v = ctx.input_values(0);
  ctx.output(0) = TypeInfo::tensor(dt, SymShape{v && v->size() == 1 ? (*v)[0] : ctx.fresh()});
  return Status::ok();
}

}  // namespace onnxtrim::ops::signal
