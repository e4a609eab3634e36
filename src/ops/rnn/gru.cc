// GRU (1, 3, 7, 14, 22): gates z, r, h (that order in W, R, B); f = Sigmoid, g = Tanh by default.
//   z = f(X Wz + H Rz + Wbz + Rbz),  r = f(X Wr + H Rr + Wbr + Rbr)
//   h~ = g(X Wh + (r * H) Rh + Rbh + Wbh), or with linear_before_reset
//   h~ = g(X Wh + r * (H Rh + Rbh) + Wbh);   H' = (1 - z) * h~ + z * H
#include "ops/rnn/cell_common.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_gru(KernelContext& ctx) {
  rnn::CellAttributes attrs;
  OT_RETURN_IF_ERROR(rnn::cell_attributes(ctx, {"Sigmoid", "Tanh"}, &attrs));
  bool lbr = ctx.node().attr_int("linear_before_reset", 0) != 0;
  return rnn::run(ctx, 3, false, [&](const rnn::Dims3& dm, const rnn::Weights& w) -> rnn::Cell {
    return [dm, &w, attrs, lbr](int64_t d, const double* x, double* h, double*) {
      auto H = static_cast<size_t>(dm.hidden);
      const rnn::Activation& f = attrs.acts[static_cast<size_t>(d * 2)];
      const rnn::Activation& g = attrs.acts[static_cast<size_t>(d * 2 + 1)];
      std::vector<double> z(H), r(H), hh(H), rh(H);
      rnn::gate(dm, w, 3, d, 0, x, h, true, true, z.data());
      rnn::gate(dm, w, 3, d, 1, x, h, true, true, r.data());
      for (size_t k = 0; k < H; ++k) {
        z[k] = f(rnn::clip(z[k], attrs.clip));
        r[k] = f(rnn::clip(r[k], attrs.clip));
      }
      if (lbr) {
        // X Wh + Wbh, and separately H Rh + Rbh.
        std::vector<double> xpart(H), hpart(H), zero(H, 0.0);
        rnn::gate(dm, w, 3, d, 2, x, h, false, false, xpart.data());
        const double* R = &w.R[static_cast<size_t>(d * 3 * dm.hidden * dm.hidden)];
        const double* B = &w.B[static_cast<size_t>(d * 6 * dm.hidden)];
        for (size_t k = 0; k < H; ++k) {
          double acc = B[3 * H + 2 * H + k];
          for (size_t j = 0; j < H; ++j) acc += h[j] * R[(2 * H + k) * H + j];
          hh[k] = g(rnn::clip(xpart[k] + r[k] * acc, attrs.clip));
        }
      } else {
        for (size_t k = 0; k < H; ++k) rh[k] = r[k] * h[k];
        rnn::gate(dm, w, 3, d, 2, x, rh.data(), true, true, hh.data());
        for (size_t k = 0; k < H; ++k) hh[k] = g(rnn::clip(hh[k], attrs.clip));
      }
      for (size_t k = 0; k < H; ++k) h[k] = (1 - z[k]) * hh[k] + z[k] * h[k];
    };
  });
}

// ---- shape inference
Status infer_gru(InferContext& ctx) { return rnn::infer(ctx, false); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(GRU, "", "GRU", (std::vector<int>{1, 3, 7, 14, 22}), eval_gru);
ONNXTRIM_REGISTER_INFER(GRU, "", "GRU", infer_gru);
ONNXTRIM_REGISTER_TYPES(GRU, "", "GRU", "T T T T T1 T",
                        {{"T", kFloatTypes}, {"T1", type_bits({ir::DataType::kInt32})}});

}  // namespace onnxtrim::ops
