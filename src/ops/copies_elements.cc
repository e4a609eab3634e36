#include "ops/copies_elements.h"

#include <set>
#include <utility>

namespace onnxtrim::ops {

namespace {
std::set<std::pair<std::string, std::string>, std::less<>>& table() {
  static std::set<std::pair<std::string, std::string>, std::less<>> t;
  return t;
}
std::string norm(std::string_view d) { return d == "ai.onnx" ? std::string() : std::string(d); }
}  // namespace

void register_copies_elements(std::string domain, std::string op_type) {
  table().emplace(norm(domain), std::move(op_type));
}

bool copies_elements(std::string_view domain, std::string_view op_type) {
  return table().count(std::pair{norm(domain), std::string(op_type)}) != 0;
}

}  // namespace onnxtrim::ops
