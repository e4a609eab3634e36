// HammingWindow (17): the Hamming window (alpha = 25/46) of length size, periodic (N = size) or symmetric (N = size - 1):
//   w[n] = 25.0/46.0 - 21.0/46.0 cos(2 pi n / N) + 0.0 cos(4 pi n / N), in output_datatype.
#include "ops/signal/signal_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_hamming_window(KernelContext& ctx) { return signal::eval_cosine_window(ctx, 25.0/46.0, 21.0/46.0, 0.0); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(HammingWindow, "", "HammingWindow", (std::vector<int>{17}), eval_hamming_window);
ONNXTRIM_REGISTER_INFER(HammingWindow, "", "HammingWindow", signal::infer_window);
ONNXTRIM_REGISTER_TYPES(HammingWindow, "", "HammingWindow", "T1",
                        {{"T1", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}});

}  // namespace onnxtrim::ops
