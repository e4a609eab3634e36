#include "ops/rnn/rnn_util.h"

#include <cmath>

namespace onnxtrim::ops::rnn {

double Activation::operator()(double x) const {
  auto a = [&](double d) { return std::isnan(alpha) ? d : alpha; };
  auto b = [&](double d) { return std::isnan(beta) ? d : beta; };
  const std::string& f = name;
  if (f == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (f == "Tanh") return std::tanh(x);
  if (f == "Relu") return std::max(0.0, x);
  if (f == "Affine") return a(1.0) * x + b(0.0);
  if (f == "LeakyRelu") return x >= 0 ? x : a(0.01) * x;
  if (f == "ThresholdedRelu") return x > a(1.0) ? x : 0.0;
  if (f == "ScaledTanh") return a(1.0) * std::tanh(b(1.0) * x);
  if (f == "HardSigmoid") return std::max(0.0, std::min(1.0, a(0.2) * x + b(0.5)));
  if (f == "Elu") return x >= 0 ? x : a(1.0) * (std::exp(x) - 1.0);
  if (f == "Softsign") return x / (1.0 + std::fabs(x));
  if (f == "Softplus") return std::log1p(std::exp(x));
  return x;
}

bool activations_of(const ir::Node& n, const std::vector<std::string>& defaults, int64_t dirs,
                    std::vector<Activation>* out, std::string* err) {
  static const char* known[] = {"Sigmoid",    "Tanh",        "Relu", "Affine",   "LeakyRelu", "ThresholdedRelu",
                                "ScaledTanh", "HardSigmoid", "Elu",  "Softsign", "Softplus"};
  std::vector<std::string> names;
  if (const ir::Attribute* a = n.attr("activations")) names = a->strings;
  size_t per = defaults.size();
  if (names.empty())
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != per * static_cast<size_t>(dirs)) {
    *err = "activations must list " + std::to_string(per * static_cast<size_t>(dirs)) + " functions";
    return false;
  }
  std::vector<float> alphas, betas;
  if (const ir::Attribute* a = n.attr("activation_alpha")) alphas = a->floats;
  if (const ir::Attribute* a = n.attr("activation_beta")) betas = a->floats;
  out->clear();
  for (size_t i = 0; i < names.size(); ++i) {
    bool ok = false;
    for (const char* k : known) ok |= names[i] == k;
    if (!ok) {
      *err = "activation '" + names[i] + "' is not supported";
      return false;
    }
    double alpha = i < alphas.size() ? alphas[i] : NAN, beta = i < betas.size() ? betas[i] : NAN;
    out->push_back({names[i], alpha, beta});
  }
  return true;
}

namespace {

std::vector<double> doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = element_as_double(t, i);
  return v;
}

}  // namespace

Status cell_attributes(const KernelContext& ctx, const std::vector<std::string>& defaults, CellAttributes* a) {
  std::string err;
  int64_t dirs = ctx.node().attr_string("direction", "forward") == "bidirectional" ? 2 : 1;
  if (!activations_of(ctx.node(), defaults, dirs, &a->acts, &err)) return ctx.error(ctx.node().op_type + " " + err);
  a->clip = ctx.node().attr_float("clip", 0.0f);
  return Status::ok();
}

Status run(KernelContext& ctx, int64_t gates, bool has_c,
           const std::function<Cell(const Dims3&, const Weights&)>& make_cell) {
  const ir::Node& n = ctx.node();
  const std::string& op = n.op_type;
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2)) return ctx.error(op + " needs X, W and R");
  const Tensor& X = ctx.input(0);
  const Tensor& W = ctx.input(1);
  const Tensor& R = ctx.input(2);
  if (!ir::dtype_is_float(X.dtype())) return ctx.error(op + " takes float types");
  int64_t layout = ctx.opset() >= 14 ? n.attr_int("layout", 0) : 0;
  std::string direction = n.attr_string("direction", "forward");
  Dims3 d;
  d.dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return ctx.error(op + " direction must be forward, reverse or bidirectional");
  if (X.rank() != 3 || W.rank() != 3 || R.rank() != 3) return ctx.error(op + " X, W and R must be 3-D");
  d.seq = layout ? X.dims()[1] : X.dims()[0];
  d.batch = layout ? X.dims()[0] : X.dims()[1];
  d.input = X.dims()[2];
  d.hidden = n.attr_int("hidden_size", R.dims()[2]);
  if (W.dims() != Dims{d.dirs, gates * d.hidden, d.input} || R.dims() != Dims{d.dirs, gates * d.hidden, d.hidden})
    return ctx.error(op + " W or R has the wrong shape for hidden_size " + std::to_string(d.hidden));
  Weights w;
  w.W = doubles(W);
  w.R = doubles(R);
  w.B.assign(static_cast<size_t>(d.dirs * 2 * gates * d.hidden), 0.0);
  if (ctx.has_input(3)) {
    if (ctx.input(3).dims() != Dims{d.dirs, 2 * gates * d.hidden}) return ctx.error(op + " B has the wrong shape");
    w.B = doubles(ctx.input(3));
  }
  std::vector<int64_t> lens(static_cast<size_t>(d.batch), d.seq);
  if (ctx.has_input(4)) {
    lens = to_int64_vector(ctx.input(4));
    if (static_cast<int64_t>(lens.size()) != d.batch)
      return ctx.error(op + " sequence_lens must have one entry per batch");
    for (int64_t l : lens)
      if (l < 0 || l > d.seq) return ctx.error(op + " sequence length " + std::to_string(l) + " is out of range");
  }
  // States [dirs, batch, hidden] (layout 1 transposes the first two axes).
  std::vector<double> h(static_cast<size_t>(d.dirs * d.batch * d.hidden), 0.0), c = h;
  auto load_state = [&](size_t input, std::vector<double>* s) -> Status {
    if (!ctx.has_input(input)) return Status::ok();
    const Tensor& t = ctx.input(input);
    Dims want = layout ? Dims{d.batch, d.dirs, d.hidden} : Dims{d.dirs, d.batch, d.hidden};
    if (t.dims() != want) return ctx.error(op + " initial state has the wrong shape");
    for (int64_t di = 0; di < d.dirs; ++di)
      for (int64_t b = 0; b < d.batch; ++b)
        for (int64_t k = 0; k < d.hidden; ++k)
          (*s)[static_cast<size_t>((di * d.batch + b) * d.hidden + k)] =
              element_as_double(t, layout ? (b * d.dirs + di) * d.hidden + k : (di * d.batch + b) * d.hidden + k);
    return Status::ok();
  };
  OT_RETURN_IF_ERROR(load_state(5, &h));
  if (has_c) {
    OT_RETURN_IF_ERROR(load_state(6, &c));
    if (ctx.has_input(7)) {
      if (ctx.input(7).dims() != Dims{d.dirs, 3 * d.hidden}) return ctx.error(op + " P has the wrong shape");
      w.P = doubles(ctx.input(7));
    }
  }
  Cell cell = make_cell(d, w);
  Tensor Y(X.dtype(), layout ? Dims{d.batch, d.seq, d.dirs, d.hidden} : Dims{d.seq, d.dirs, d.batch, d.hidden});
  std::vector<double> xrow(static_cast<size_t>(d.input));
  for (int64_t di = 0; di < d.dirs; ++di) {
    bool reverse = direction == "reverse" || di == 1;
    for (int64_t b = 0; b < d.batch; ++b) {
      double* hb = &h[static_cast<size_t>((di * d.batch + b) * d.hidden)];
      double* cb = &c[static_cast<size_t>((di * d.batch + b) * d.hidden)];
      int64_t len = lens[static_cast<size_t>(b)];
      for (int64_t step = 0; step < len; ++step) {
        int64_t t = reverse ? len - 1 - step : step;
        for (int64_t k = 0; k < d.input; ++k)
          xrow[static_cast<size_t>(k)] =
              element_as_double(X, layout ? (b * d.seq + t) * d.input + k : (t * d.batch + b) * d.input + k);
        cell(di, xrow.data(), hb, cb);
        for (int64_t k = 0; k < d.hidden; ++k)
          store_double(Y,
                       layout ? ((b * d.seq + t) * d.dirs + di) * d.hidden + k
                              : ((t * d.dirs + di) * d.batch + b) * d.hidden + k,
                       hb[k]);
      }
    }
  }
  auto state_tensor = [&](const std::vector<double>& s) {
    Tensor t(X.dtype(), layout ? Dims{d.batch, d.dirs, d.hidden} : Dims{d.dirs, d.batch, d.hidden});
    for (int64_t di = 0; di < d.dirs; ++di)
      for (int64_t b = 0; b < d.batch; ++b)
        for (int64_t k = 0; k < d.hidden; ++k)
          store_double(t, layout ? (b * d.dirs + di) * d.hidden + k : (di * d.batch + b) * d.hidden + k,
                       s[static_cast<size_t>((di * d.batch + b) * d.hidden + k)]);
    return t;
  };
  if (ctx.wants_output(0)) ctx.set_output(0, std::move(Y));
  if (ctx.wants_output(1)) ctx.set_output(1, state_tensor(h));
  if (has_c && ctx.wants_output(2)) ctx.set_output(2, state_tensor(c));
  return Status::ok();
}

Status infer(InferContext& ctx, bool has_c) {
  const ir::Node& n = ctx.node();
  const TypeInfo& x = ctx.input(0);
  const TypeInfo& r = ctx.input(2);
  int64_t layout = ctx.opset() >= 14 ? n.attr_int("layout", 0) : 0;
  int64_t dirs = n.attr_string("direction", "forward") == "bidirectional" ? 2 : 1;
  std::optional<Expr> hidden;
  if (n.attr("hidden_size")) hidden = dim(n.attr_int("hidden_size", 0));
  else if (r.shape && r.shape->size() == 3) hidden = (*r.shape)[2];
  for (size_t o = 0; o < ctx.num_outputs(); ++o)
    if (ctx.has_output(o)) ctx.output(o) = TypeInfo::tensor(x.elem, std::nullopt);
  if (x.shape && x.shape->size() != 3) return Status::ok();
  // The outputs' ranks are fixed by the spec: Y has rank 4, Y_h and Y_c rank 3, whatever is
  // unknown of X or of the hidden size (then one unknown per dim, shared by the outputs).
  if (!hidden) hidden = ctx.fresh();
  Expr seq = !x.shape ? ctx.fresh() : layout ? (*x.shape)[1] : (*x.shape)[0];
  Expr batch = !x.shape ? ctx.fresh() : layout ? (*x.shape)[0] : (*x.shape)[1];
  if (ctx.has_output(0))
    ctx.output(0).shape = layout ? SymShape{batch, seq, dim(dirs), *hidden} : SymShape{seq, dim(dirs), batch, *hidden};
  SymShape state = layout ? SymShape{batch, dim(dirs), *hidden} : SymShape{dim(dirs), batch, *hidden};
  if (ctx.num_outputs() > 1 && ctx.has_output(1)) ctx.output(1).shape = state;
  if (has_c && ctx.num_outputs() > 2 && ctx.has_output(2)) ctx.output(2).shape = state;
  return Status::ok();
}

}  // namespace onnxtrim::ops::rnn
