// The cosine windows of opset 17: HannWindow, HammingWindow (alpha = 25/46) and BlackmanWindow,
// of length `size`, periodic (N = size) or symmetric (N = size - 1), in output_datatype:
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
// What they share: the kernel and the shape rule (signal::eval_cosine_window, infer_window);
// each is its three coefficients.
#include "ops/signal/signal_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
struct HannCoefficients {
  static constexpr double a0 = 0.5, a1 = 0.5, a2 = 0.0;
};
struct HammingCoefficients {
  static constexpr double a0 = 25.0 / 46.0, a1 = 21.0 / 46.0, a2 = 0.0;
};
struct BlackmanCoefficients {
  static constexpr double a0 = 0.42, a1 = 0.5, a2 = 0.08;
};

template <typename W>
Status eval_window(KernelContext& ctx) {
  return signal::eval_cosine_window(ctx, W::a0, W::a1, W::a2);
}

// ---- registration (versions from Changelog.md)
// One row: opset 17, the shape rule, the size's types.
OpRegistration window_row(const char* op, EvalFn eval) {
  return {.op_type = op,
          .versions = {17},
          .eval = eval,
          .infer = signal::infer_window,
          .signature = "T1",
          .types = {{"T1", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}}};
}
const OpRegistration kWindows[] = {
    window_row("HannWindow", eval_window<HannCoefficients>),
    window_row("HammingWindow", eval_window<HammingCoefficients>),
    window_row("BlackmanWindow", eval_window<BlackmanCoefficients>),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(Windows, kWindows);

}  // namespace onnxtrim::ops
