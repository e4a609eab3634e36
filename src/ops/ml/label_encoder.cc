// LabelEncoder (ai.onnx.ml): maps each element through parallel key/value lists given as
// keys_{strings,int64s,floats} / keys_tensor and values_{...} / values_tensor; elements not
// found take the default (default_{string,int64,float} / default_tensor). Output type: the
// values' type. Float keys compare by value, and a NaN key matches NaN elements.
#include <cmath>
#include <cstring>
#include <map>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// Keys and values as one tensor, whichever attribute form the node uses.
std::optional<Tensor> list_attr(const ir::Node& n, const std::string& prefix) {
  if (const ir::Attribute* a = n.attr(prefix + "_tensor"); a && a->t) return *a->t;
  if (const ir::Attribute* a = n.attr(prefix + "_strings")) {
    Tensor t(DataType::kString, {static_cast<int64_t>(a->strings.size())});
    t.strings() = a->strings;
    return t;
  }
  if (const ir::Attribute* a = n.attr(prefix + "_int64s"))
    return Tensor::from_vector<int64_t>(DataType::kInt64, {static_cast<int64_t>(a->ints.size())}, a->ints);
  if (const ir::Attribute* a = n.attr(prefix + "_floats"))
    return Tensor::from_vector<float>(DataType::kFloat, {static_cast<int64_t>(a->floats.size())}, a->floats);
  return std::nullopt;
}

// The default for values of type `t`.
Tensor default_for(const ir::Node& n, DataType t) {
  if (const ir::Attribute* a = n.attr("default_tensor"); a && a->t) return *a->t;
  if (t == DataType::kString) {
    Tensor d(DataType::kString, {1});
    d.strings()[0] = n.attr_string("default_string", "_Unused");
    return d;
  }
  if (t == DataType::kInt64)
    return Tensor::from_vector<int64_t>(DataType::kInt64, {1}, {n.attr_int("default_int64", -1)});
  if (t == DataType::kFloat)
    return Tensor::from_vector<float>(DataType::kFloat, {1}, {n.attr_float("default_float", -0.0f)});
  return Tensor(t, {1});
}

// A key made comparable across element types: strings by text, numbers by value.
struct Key {
  bool is_string = false;
  std::string s;
  double d = 0;
  bool operator<(const Key& o) const {
    if (is_string != o.is_string) return is_string < o.is_string;
    if (is_string) return s < o.s;
    bool na = std::isnan(d), nb = std::isnan(o.d);
    if (na || nb) return !na && nb;  // NaN sorts last and equals NaN
    return d < o.d;
  }
};

Key key_at(const Tensor& t, int64_t i) {
  Key k;
  if (t.dtype() == DataType::kString) {
    k.is_string = true;
    k.s = t.strings()[static_cast<size_t>(i)];
  } else {
    k.d = element_as_double(t, i);
  }
  return k;
}

void copy_element(const Tensor& from, int64_t i, Tensor& to, int64_t j) {
  if (from.dtype() == DataType::kString) {
    to.strings()[static_cast<size_t>(j)] = from.strings()[static_cast<size_t>(i)];
    return;
  }
  size_t es = static_cast<size_t>(ir::dtype_bits(from.dtype()) / 8);
  std::memcpy(to.mutable_bytes() + j * es, from.bytes() + i * es, es);
}

// ---- evaluate
Status eval_label_encoder(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!ctx.has_input(0)) return ctx.error("LabelEncoder needs an input");
  auto keys = list_attr(n, "keys");
  auto values = list_attr(n, "values");
  if (!keys || !values) return ctx.error("LabelEncoder needs keys_* and values_* attributes");
  if (keys->numel() != values->numel()) return ctx.error("LabelEncoder keys and values differ in length");
  if (values->dtype() != DataType::kString && ir::dtype_bits(values->dtype()) % 8 != 0)
    return ctx.unsupported("LabelEncoder values of type " + std::string(ir::dtype_name(values->dtype())));
  Tensor def = default_for(n, values->dtype());
  if (def.dtype() != values->dtype() || def.numel() < 1)
    return ctx.error("LabelEncoder default must be one value of the values' type");
  const Tensor& x = ctx.input(0);
  if ((x.dtype() == DataType::kString) != (keys->dtype() == DataType::kString))
    return ctx.error("LabelEncoder input and keys differ in type");
  std::map<Key, int64_t> index;
  for (int64_t i = 0; i < keys->numel(); ++i) index.emplace(key_at(*keys, i), i);
  Tensor y(values->dtype(), x.dims());
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto it = index.find(key_at(x, i));
    if (it != index.end()) copy_element(*values, it->second, y, i);
    else copy_element(def, 0, y, i);
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_label_encoder(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).values.reset();
  auto values = list_attr(ctx.node(), "values");
  ctx.output(0).elem = values ? values->dtype() : DataType::kUndefined;
  return Status::ok();
}

}  // namespace

// ---- registration (versions of the ai.onnx.ml domain)
ONNXTRIM_REGISTER_OP(LabelEncoder, "ai.onnx.ml", "LabelEncoder", (std::vector<int>{2, 4}), eval_label_encoder);
ONNXTRIM_REGISTER_INFER(LabelEncoder, "ai.onnx.ml", "LabelEncoder", infer_label_encoder);

}  // namespace onnxtrim::ops
