// Dropout: in inference the identity (mask all true). In training mode (training_mode from
// opset 12, is_test = 0 before opset 7) each element is kept with probability 1 - ratio and
// scaled by 1 / (1 - ratio), from a generator seeded by `seed` when given; such nodes are never
// folded or merged (passes/pass_util.h).
#include "ops/fold.h"
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/random/random_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_dropout(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("Dropout needs an input");
  const Tensor& x = ctx.input(0);
  bool training = false;
  double ratio = 0.5;
  if (ctx.opset() >= 12) {
    if (ctx.has_input(1)) {
      const Tensor& r = ctx.input(1);
      if (r.numel() != 1) return ctx.error("Dropout ratio must be a scalar");
      ratio = element_as_double(r, 0);
    }
    if (ctx.has_input(2)) {
      const Tensor& t = ctx.input(2);
      if (t.numel() != 1 || t.dtype() != DataType::kBool)
        return ctx.error("Dropout training_mode must be a bool scalar");
      training = t.data<uint8_t>()[0] != 0;
    }
  } else {
    ratio = ctx.node().attr_float("ratio", 0.5f);
    if (ctx.opset() < 7) training = ctx.node().attr_int("is_test", 0) == 0;
  }
  if (ctx.opset() >= 12 && (ratio < 0.0 || ratio >= 1.0)) return ctx.error("Dropout ratio must be in [0, 1)");
  if (x.dtype() == DataType::kString) return ctx.error("Dropout does not take string tensors");
  if (training && ratio != 0.0) {
    if (!ir::dtype_is_float(x.dtype())) return ctx.error("Dropout in training mode takes float types");
    auto gen = random::generator_for(ctx.node());
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Tensor y(x.dtype(), x.dims());
    Tensor mask(ctx.opset() >= 10 ? DataType::kBool : x.dtype(), x.dims());
    double scale = 1.0 / (1.0 - ratio);
    for (int64_t i = 0; i < x.numel(); ++i) {
      bool keep = u(gen) >= ratio;
      random::store(y, i, keep ? element_as_double(x, i) * scale : 0.0);
      random::store(mask, i, keep ? 1.0 : 0.0);
    }
    ctx.set_output(0, std::move(y));
    if (ctx.wants_output(1)) ctx.set_output(1, std::move(mask));
    return Status::ok();
  }
  ctx.set_output(0, x);
  if (ctx.wants_output(1)) {
    if (ctx.opset() >= 10) {
      Tensor mask(DataType::kBool, x.dims());
      if (mask.numel()) std::memset(mask.mutable_bytes(), 1, static_cast<size_t>(mask.numel()));
      ctx.set_output(1, std::move(mask));
    } else {
      // Before opset 10 the mask has the input's element type.
      Tensor mask(x.dtype(), x.dims());
      dispatch(x.dtype(), kFloats, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = mask.numel() ? mask.mutable_data<T>() : nullptr;
        for (int64_t i = 0; i < mask.numel(); ++i) p[i] = T(1.0f);
      });
      ctx.set_output(1, std::move(mask));
    }
  }
  return Status::ok();
}

// ---- shape inference
Status infer_dropout(InferContext& ctx) {
  propagate_same(ctx);
  if (ctx.has_output(1)) {
    ctx.output(1) = ctx.input(0);
    ctx.output(1).values.reset();
    if (ctx.opset() >= 10) ctx.output(1).elem = DataType::kBool;
  }
  return Status::ok();
}

// ---- local folds
// Dropout(x) -> x when it provably passes x through: in inference mode, or with a ratio of 0
// (training mode then keeps every element and scales by 1 / (1 - 0) = 1). Its mask output,
// when unused, goes with it. Refuses when the mask is used, or the node may train with a ratio
// that is not a constant 0.
bool zero_ratio(const ir::Node& n, FoldContext& fc) {
  if (fc.opset() >= 12) {
    if (!n.input(1)) return false;  // the default ratio is 0.5
    const Tensor* r = FoldContext::constant(n.input(1));
    return r && r->numel() == 1 && r->bytes() && element_as_double(*r, 0) == 0.0;
  }
  return n.attr_float("ratio", 0.5f) == 0.0f;
}

bool fold_dropout(ir::Node& n, FoldContext& fc) {
  if (n.output(1) && (n.output(1)->has_uses() || n.output(1)->is_graph_output())) return false;
  bool inference = true;
  if (fc.opset() >= 12) {
    if (n.input(2)) {
      const Tensor* t = FoldContext::constant(n.input(2));
      inference = t && t->numel() == 1 && t->bytes() && t->bytes()[0] == 0;  // training_mode false
    }
  } else if (fc.opset() < 7 && n.attr_int("is_test", 0) == 0) {
    inference = false;
  }
  if (!inference && !zero_ratio(n, fc)) return false;
  return fc.forward(n, 0, n.input(0));
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Dropout, "", "Dropout", (std::vector<int>{1, 6, 7, 10, 12, 13, 22}), eval_dropout);
ONNXTRIM_REGISTER_INFER(Dropout, "", "Dropout", infer_dropout);
ONNXTRIM_REGISTER_TYPES(Dropout, "", "Dropout", "T T1 T2",
                        {{"T", kFloatTypes | kFloat8Types},
                         {"T1", kFloatTypes | kFloat8Types},
                         {"T2", type_bits({ir::DataType::kBool})}});
ONNXTRIM_REGISTER_FOLD(DropoutNop, "", "Dropout", "eliminate_nop_ops", fold_dropout);

}  // namespace onnxtrim::ops
