// MelWeightMatrix (17): [dft_length / 2 + 1, num_mel_bins] weights that map a one-sided
// spectrogram onto mel bands. num_mel_bins + 2 points are spaced evenly on the mel scale
// (mel = 2595 log10(1 + hz / 700)) from lower_edge_hertz, mapped back to hz
// and to spectrogram bins floor((dft_length + 1) hz / sample_rate); band i is the triangle
// rising from point i to point i + 1 and falling to point i + 2. As in the specification's
// function body, the mel step is (upper - lower) / (num_mel_bins + 2).
#include <cmath>

#include "ops/signal/signal_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_mel_weight_matrix(KernelContext& ctx) {
  for (size_t i = 0; i < 5; ++i)
    if (!ctx.has_input(i) || ctx.input(i).numel() != 1) return ctx.error("MelWeightMatrix needs five scalar inputs");
  int64_t mels = to_int64_vector(ctx.input(0))[0];
  int64_t dft_length = to_int64_vector(ctx.input(1))[0];
  int64_t rate = to_int64_vector(ctx.input(2))[0];
  double lo = element_as_double(ctx.input(3), 0), hi = element_as_double(ctx.input(4), 0);
  if (mels <= 0 || dft_length <= 0 || rate <= 0)
    return ctx.error("MelWeightMatrix sizes and sample_rate must be positive");
  auto dt = static_cast<DataType>(ctx.node().attr_int("output_datatype", 1));
  int64_t bins = dft_length / 2 + 1;
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double mlo = to_mel(lo), mhi = to_mel(hi);
  double step = (mhi - mlo) / static_cast<double>(mels + 2);  // as the specification's function body
  std::vector<int64_t> pts(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + mlo) / 2595.0) - 1.0);
    pts[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate)));
  }
  std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double* {
    if (j < 0 || j >= bins) return nullptr;
    return &w[static_cast<size_t>(j * mels + i)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = pts[static_cast<size_t>(i)], center = pts[static_cast<size_t>(i + 1)],
            right = pts[static_cast<size_t>(i + 2)];
    if (center == left) {
      if (double* p = at(center, i)) *p = 1;
    } else {
      for (int64_t j = left; j <= center; ++j)
        if (double* p = at(j, i)) *p = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    if (right > center)
      for (int64_t j = center; j < right; ++j)
        if (double* p = at(j, i)) *p = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  Tensor y(dt, {bins, mels});
  for (size_t i = 0; i < w.size(); ++i) {
    if (ir::dtype_is_float(dt)) store_double(y, static_cast<int64_t>(i), w[i]);
    else if (!dispatch(dt, kSigned | kUnsigned, [&](auto tag) {
               using T = typename decltype(tag)::type;
               y.mutable_data<T>()[i] = static_cast<T>(w[i]);
             }))
      return ctx.error("MelWeightMatrix output_datatype is not numeric");
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_mel_weight_matrix(InferContext& ctx) {
  auto dt = static_cast<DataType>(ctx.node().attr_int("output_datatype", 1));
  const auto& mels = ctx.input_values(0);
  const auto& len = ctx.input_values(1);
  ctx.output(0) =
      TypeInfo::tensor(dt, SymShape{len && len->size() == 1 ? Expr::floordiv((*len)[0], dim(2)) + dim(1) : ctx.fresh(),
                                    mels && mels->size() == 1 ? (*mels)[0] : ctx.fresh()});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(MelWeightMatrix, "", "MelWeightMatrix", (std::vector<int>{17}), eval_mel_weight_matrix);
ONNXTRIM_REGISTER_INFER(MelWeightMatrix, "", "MelWeightMatrix", infer_mel_weight_matrix);
ONNXTRIM_REGISTER_TYPES(MelWeightMatrix, "", "MelWeightMatrix", "T1 T1 T1 T2 T2",
                        {{"T1", type_bits({ir::DataType::kInt32, ir::DataType::kInt64})}, {"T2", kFloatTypes}});

}  // namespace onnxtrim::ops
