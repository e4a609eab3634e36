#include "ops/registry.h"

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
  auto it = ops_.find({std::string(norm(domain)), std::string(op_type)});
  return it == ops_.end() ? nullptr : &it->second;
}

const OpSchema* OpRegistry::find(std::string_view domain, std::string_view op_type, int64_t opset) const {
  const OpSchema* s = find_any(domain, op_type);
  if (!s) return nullptr;
  if (!s->versions.empty() && opset > 0 && s->versions.front() > opset) return nullptr;
  return s;
}

std::vector<const OpSchema*> OpRegistry::all() const {
  std::vector<const OpSchema*> out;
  for (const auto& [k, v] : ops_) out.push_back(&v);
  return out;
}

}  // namespace onnxtrim::ops
