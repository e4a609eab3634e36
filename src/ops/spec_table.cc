#include "ops/spec_table.h"

namespace onnxtrim::ops {

namespace {

const SpecRow kSpecRows[] = {
#include "ops/spec_table.inc"
};

std::vector<std::string> spec_split(std::string_view s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

}  // namespace

std::span<const SpecRow> spec_rows() { return kSpecRows; }

std::vector<SpecFormal> parse_spec_formals(std::string_view s) {
  std::vector<SpecFormal> out;
  for (const std::string& tok : spec_split(s, ';')) {
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
  for (const std::string& c : spec_split(s, '|')) {
    size_t eq = c.find('=');
    if (eq == std::string::npos) continue;
    out[c.substr(0, eq)] = spec_split(std::string_view(c).substr(eq + 1), ',');
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
