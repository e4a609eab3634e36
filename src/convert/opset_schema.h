// What the spec says of each version of each default-domain operator, as the opset converter
// needs it: attributes with their defaults, inputs and outputs (optional, variadic), and the
// types each type variable admits, read from the spec table (ops/spec_table.h, generated from
// Changelog.md by scripts/gen_spec_table.py); the registry (ops/registry.h) keeps only the
// version numbers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onnxtrim::convert {

struct AttrSpec {
  std::string name;
  std::string type;  // "int", "float", "string", "ints", "floats", "graph", ...
  bool required = false;
  std::optional<std::string> default_;  // the spec's default as written ("-1", "1e-05", "NOTSET")
};

struct Formal {
  std::string name;
  bool optional = false;
  bool variadic = false;
  std::string type;  // a type variable ("T") or a fixed type ("@int64")
};

struct OpVersion {
  std::string op;
  int since = 0;
  bool deprecated = false;  // this entry marks the op's removal
  std::vector<AttrSpec> attrs;
  std::vector<Formal> inputs, outputs;
  std::map<std::string, std::vector<std::string>> constraints;  // "T" -> {"float", "float16", ...}

  const AttrSpec* attr(std::string_view name) const;
  // The types formal `f` admits ("float", "int64", "seq(tensor(float))"); empty when unknown.
  std::vector<std::string> admitted(const Formal& f) const;
  // Minimum and maximum number of inputs (max: -1 for variadic).
  size_t min_inputs() const;
  int64_t max_inputs() const;
};

// Every version of `op`, ascending (empty for an op the spec does not have).
const std::vector<OpVersion>& versions(std::string_view op);
// The version of `op` in force at `opset`: nullptr when the op does not exist yet or was
// removed (deprecated) at or before `opset`.
const OpVersion* at(std::string_view op, int64_t opset);
// The first opset in which `op` exists (0 when unknown).
int first_version(std::string_view op);
// The highest opset version the table knows.
int newest_opset();

}  // namespace onnxtrim::convert
