// LSTM (1, 7, 14, 22): gates i, o, f, c (that order in W, R, B); peepholes P = [Pi, Po, Pf];
// f = Sigmoid, g = h = Tanh by default.
//   i = f(X Wi + H Ri + Pi * C + Wbi + Rbi),  f_t = f(X Wf + H Rf + Pf * C + Wbf + Rbf)
//   (input_forget: f_t = 1 - i),  c~ = g(X Wc + H Rc + Wbc + Rbc),  C' = f_t * C + i * c~
//   o = f(X Wo + H Ro + Po * C' + Wbo + Rbo),  H' = o * h(C')
#include "ops/rnn/cell_common.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_lstm(KernelContext& ctx) {
  rnn::CellAttributes attrs;
  OT_RETURN_IF_ERROR(rnn::cell_attributes(ctx, {"Sigmoid", "Tanh", "Tanh"}, &attrs));
  bool coupled = ctx.node().attr_int("input_forget", 0) != 0;
  return rnn::run(ctx, 4, true, [&](const rnn::Dims3& dm, const rnn::Weights& w) -> rnn::Cell {
    return [dm, &w, attrs, coupled](int64_t d, const double* x, double* h, double* cs) {
      auto H = static_cast<size_t>(dm.hidden);
      const rnn::Activation& f = attrs.acts[static_cast<size_t>(d * 3)];
      const rnn::Activation& g = attrs.acts[static_cast<size_t>(d * 3 + 1)];
      const rnn::Activation& hf = attrs.acts[static_cast<size_t>(d * 3 + 2)];
      std::vector<double> i(H), o(H), fg(H), cc(H);
      rnn::gate(dm, w, 4, d, 0, x, h, true, true, i.data());
      rnn::gate(dm, w, 4, d, 1, x, h, true, true, o.data());
      rnn::gate(dm, w, 4, d, 2, x, h, true, true, fg.data());
      rnn::gate(dm, w, 4, d, 3, x, h, true, true, cc.data());
      const double* P = w.P.empty() ? nullptr : &w.P[static_cast<size_t>(d * 3 * dm.hidden)];
      for (size_t k = 0; k < H; ++k) {
        double ig = f(rnn::clip(i[k] + (P ? P[k] * cs[k] : 0.0), attrs.clip));
        double fgt = coupled ? 1 - ig : f(rnn::clip(fg[k] + (P ? P[2 * H + k] * cs[k] : 0.0), attrs.clip));
        double ct = g(rnn::clip(cc[k], attrs.clip));
        double cn = fgt * cs[k] + ig * ct;
        double og = f(rnn::clip(o[k] + (P ? P[H + k] * cn : 0.0), attrs.clip));
        cs[k] = cn;
        h[k] = og * hf(cn);
      }
    };
  });
}

// ---- shape inference
Status infer_lstm(InferContext& ctx) { return rnn::infer(ctx, true); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(LSTM, "", "LSTM", (std::vector<int>{1, 7, 14, 22}), eval_lstm);
ONNXTRIM_REGISTER_INFER(LSTM, "", "LSTM", infer_lstm);
ONNXTRIM_REGISTER_TYPES(LSTM, "", "LSTM", "T T T T T1 T T T",
                        {{"T", kFloatTypes}, {"T1", type_bits({ir::DataType::kInt32})}});

}  // namespace onnxtrim::ops
