#include "ops/registry.h"

#include <algorithm>
#include <tuple>

#include "ops/infer.h"

namespace onnxtrim::ops {

namespace {
std::string_view norm(std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; }
}  // namespace

OpRegistry& OpRegistry::instance() {
  static OpRegistry r;
  return r;
}

void OpRegistry::add(OpSchema s) {
  s.domain = std::string(norm(s.domain));
  auto key = std::make_pair(s.domain, s.op_type);
  ops_[key] = std::move(s);
}

const OpSchema* OpRegistry::find_any(std::string_view domain, std::string_view op_type) const {
  auto it = ops_.find(OpKeyView{norm(domain), op_type});
  return it == ops_.end() ? nullptr : &it->second;
}

const OpSchema* OpRegistry::find(std::string_view domain, std::string_view op_type, int64_t opset) const {
  const OpSchema* s = find_any(domain, op_type);
  if (!s) return nullptr;
  if (!s->versions.empty() && opset > 0 && s->versions.front() > opset) return nullptr;
  return s;
}

void OpRegistry::add_fold(std::string domain, std::string op_type, std::string pass, FoldFn fn) {
  folds_[{std::string(norm(domain)), std::move(op_type)}].emplace_back(std::move(pass), fn);
}

void OpRegistry::declare(std::string domain, std::string op_type, OpProperty p) {
  properties_[{std::string(norm(domain)), std::move(op_type)}] |= static_cast<unsigned>(p);
}

bool OpRegistry::has(std::string_view domain, std::string_view op_type, OpProperty p) const {
  auto it = properties_.find(OpKeyView{norm(domain), op_type});
  return it != properties_.end() && (it->second & static_cast<unsigned>(p)) != 0;
}

void OpRegistry::add_cost(std::string domain, std::string op_type, CostFn fn) {
  costs_[{std::string(norm(domain)), std::move(op_type)}] = fn;
}

double OpRegistry::cost(const ir::Node& n, const CostContext& c) const {
  auto it = costs_.find(OpKeyView{norm(n.domain), n.op_type});
  if (it != costs_.end()) return it->second(n, c);
  return c.numel(n.output(0));
}

double CostContext::numel(const ir::Value* v) const {
  auto s = v ? shapes_(v) : std::nullopt;
  if (!s) return 0;
  double n = 1;
  for (int64_t d : *s) n *= static_cast<double>(d);
  return n;
}

double CostContext::dim(const ir::Value* v, int64_t axis) const {
  auto s = v ? shapes_(v) : std::nullopt;
  if (!s || s->empty()) return 0;
  if (axis < 0) axis += static_cast<int64_t>(s->size());
  if (axis < 0 || axis >= static_cast<int64_t>(s->size())) return 0;
  return static_cast<double>((*s)[static_cast<size_t>(axis)]);
}

double CostContext::filter(const ir::Value* w) const {
  double m = dim(w, 0);
  return m > 0 ? numel(w) / m : 0;
}

std::vector<FoldFn> OpRegistry::find_folds(std::string_view domain, std::string_view op_type,
                                           std::string_view pass) const {
  std::vector<FoldFn> out;
  auto it = folds_.find(OpKeyView{norm(domain), op_type});
  if (it == folds_.end()) return out;
  for (const auto& [p, fn] : it->second)
    if (p == pass) out.push_back(fn);
  return out;
}

std::vector<const OpSchema*> OpRegistry::all() const {
  std::vector<const OpSchema*> out;
  for (const auto& [k, v] : ops_) out.push_back(&v);
  std::sort(out.begin(), out.end(), [](const OpSchema* a, const OpSchema* b) {
    return std::tie(a->domain, a->op_type) < std::tie(b->domain, b->op_type);
  });
  return out;
}

void register_op(const OpRegistration& r) {
  OpRegistry& reg = OpRegistry::instance();
  reg.add({r.domain, r.op_type, r.versions, r.eval, r.deterministic});
  for (OpProperty p : r.properties) reg.declare(r.domain, r.op_type, p);
  if (r.infer) register_infer(r.domain, r.op_type, r.infer);
  if (r.cost) reg.add_cost(r.domain, r.op_type, r.cost);
  if (!r.signature.empty()) register_types(r.domain, r.op_type, r.signature, r.types);
  for (const auto& [pass, fn] : r.folds) reg.add_fold(r.domain, r.op_type, pass, fn);
}

}  // namespace onnxtrim::ops
