// HannWindow (17): the Hann window of length size, periodic (N = size) or symmetric (N = size - 1):
//   w[n] = 0.5 - 0.5 cos(2 pi n / N) + 0.0 cos(4 pi n / N), in output_datatype.
#include "ops/signal/signal_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_hann_window(KernelContext& ctx) { return signal::eval_cosine_window(ctx, 0.5, 0.5, 0.0); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(HannWindow, "", "HannWindow", (std::vector<int>{17}), eval_hann_window);
ONNXTRIM_REGISTER_INFER(HannWindow, "", "HannWindow", signal::infer_window);
ONNXTRIM_REGISTER_TYPES(HannWindow, "", "HannWindow", "T1",
                        {{"T1", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
