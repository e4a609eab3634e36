// The per-version operator facts of the spec table (ops/spec_table.h), parsed once into
// OpVersion records.
#include "convert/opset_schema.h"

#include <algorithm>
#include <unordered_map>

#include "ops/spec_table.h"
#include "support/text.h"

namespace onnxtrim::convert {

namespace {

std::vector<Formal> formals_of(std::string_view s) {
  std::vector<Formal> out;
  for (ops::SpecFormal& f : ops::parse_spec_formals(s))
    out.push_back(Formal{std::move(f.name), f.optional, f.variadic, std::move(f.type)});
  return out;
}

std::vector<AttrSpec> parse_attrs(std::string_view s) {
  std::vector<AttrSpec> out;
  for (const auto& tok : support::split(s, ';')) {
    AttrSpec a;
    size_t colon = tok.find(':');
    a.name = tok.substr(0, colon);
    std::string rest = tok.substr(colon + 1);
    size_t eq = rest.find('=');
    if (eq != std::string::npos) {
      a.default_ = rest.substr(eq + 1);
      rest = rest.substr(0, eq);
    }
    if (!rest.empty() && rest.back() == '!') {
      a.required = true;
      rest.pop_back();
    }
    a.type = rest;
    out.push_back(std::move(a));
  }
  return out;
}

struct Table {
  std::unordered_map<std::string, std::vector<OpVersion>> ops;
  int newest = 0;
  Table() {
    for (const ops::SpecRow& r : ops::spec_rows()) {
      OpVersion v;
      v.op = r.op;
      v.since = r.since;
      v.deprecated = r.deprecated;
      v.attrs = parse_attrs(r.attrs);
      v.inputs = formals_of(r.inputs);
      v.outputs = formals_of(r.outputs);
      v.constraints = ops::parse_spec_constraints(r.constraints);
      newest = std::max(newest, r.since);
      ops[r.op].push_back(std::move(v));
    }
    for (auto& [_, list] : ops)
      std::sort(list.begin(), list.end(), [](const OpVersion& a, const OpVersion& b) { return a.since < b.since; });
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const AttrSpec* OpVersion::attr(std::string_view name) const {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<std::string> OpVersion::admitted(const Formal& f) const {
  if (f.type.empty()) return {};
  if (f.type[0] == '@') return {f.type.substr(1)};
  auto it = constraints.find(f.type);
  return it == constraints.end() ? std::vector<std::string>{} : it->second;
}

size_t OpVersion::min_inputs() const {
  size_t n = 0;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].optional && !inputs[i].variadic) n = i + 1;
  return n;
}

int64_t OpVersion::max_inputs() const {
  for (const auto& f : inputs)
    if (f.variadic) return -1;
  return static_cast<int64_t>(inputs.size());
}

const std::vector<OpVersion>& versions(std::string_view op) {
  static const std::vector<OpVersion> none;
  auto it = table().ops.find(std::string(op));
  return it == table().ops.end() ? none : it->second;
}

const OpVersion* at(std::string_view op, int64_t opset) {
  const OpVersion* found = nullptr;
  for (const auto& v : versions(op))
    if (v.since <= opset) found = &v;
  if (!found) return nullptr;
  // A deprecation entry is the op's removal only when no later version follows it
  // (GroupNormalization-18 is marked deprecated in favour of -21, yet is the version in force
  // from 18 to 20).
  if (found->deprecated && &versions(op).back() == found) return nullptr;
  return found;
}

int first_version(std::string_view op) {
  const auto& v = versions(op);
  return v.empty() ? 0 : v.front().since;
}

int newest_opset() { return table().newest; }

}  // namespace onnxtrim::convert
