// RNN (1, 7, 14, 22): H_t = f(clip(X_t W^T + H_{t-1} R^T + Wb + Rb)), f = Tanh by default.
// Shared loop, layouts and outputs in rnn_util.h.
#include "ops/rnn/cell_common.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_rnn(KernelContext& ctx) {
  rnn::CellAttributes attrs;
  OT_RETURN_IF_ERROR(rnn::cell_attributes(ctx, {"Tanh"}, &attrs));
  return rnn::run(ctx, 1, false, [&](const rnn::Dims3& dm, const rnn::Weights& w) -> rnn::Cell {
    return [dm, &w, attrs](int64_t d, const double* x, double* h, double*) {
      std::vector<double> a(static_cast<size_t>(dm.hidden));
      rnn::gate(dm, w, 1, d, 0, x, h, true, true, a.data());
      for (int64_t k = 0; k < dm.hidden; ++k)
        h[k] = attrs.acts[static_cast<size_t>(d)](rnn::clip(a[static_cast<size_t>(k)], attrs.clip));
    };
  });
}

// ---- shape inference
Status infer_rnn(InferContext& ctx) { return rnn::infer(ctx, false); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(RNN, "", "RNN", (std::vector<int>{1, 7, 14, 22}), eval_rnn);
ONNXTRIM_REGISTER_INFER(RNN, "", "RNN", infer_rnn);
ONNXTRIM_REGISTER_TYPES(RNN, "", "RNN", "T T T T T1 T",
                        {{"T", kFloatTypes}, {"T1", type_bits({ir::DataType::kInt32})}});

}  // namespace onnxtrim::ops
