#include "ops/spec_table.h"
#include "support/text.h"

namespace onnxtrim::ops {

namespace {

const SpecRow kSpecRows[] = {
#include "ops/spec_table.inc"
};

}  // namespace

std::span<const SpecRow> spec_rows() { return kSpecRows; }

std::vector<SpecFormal> parse_spec_formals(std::string_view s) {
  std::vector<SpecFormal> out;
  for (const std::string& tok : support::split(s, ';')) {
    SpecFormal f;
    size_t colon = tok.rfind(':');
    std::string name = tok.substr(0, colon);
    f.type = colon == std::string::npos ? "" : tok.substr(colon + 1);
    while (!name.empty() && (name.back() == '?' || name.back() == '*' || name.back() == '!')) {
      (name.back() == '?' ? f.optional : name.back() == '*' ? f.variadic : f.non_differentiable) = true;
      name.pop_back();
    }
    f.name = std::move(name);
    out.push_back(std::move(f));
  }
  return out;
}

std::map<std::string, std::vector<std::string>> parse_spec_constraints(std::string_view s) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& c : support::split(s, '|')) {
    size_t eq = c.find('=');
    if (eq == std::string::npos) continue;
    out[c.substr(0, eq)] = support::split(std::string_view(c).substr(eq + 1), ',');
  }
  return out;
}

std::vector<int> spec_versions(std::string_view domain, std::string_view op) {
  std::vector<int> out;
  for (const SpecRow& r : kSpecRows)
    if (r.op == op && r.domain == domain) out.push_back(r.since);
  return out;
}

}  // namespace onnxtrim::ops
