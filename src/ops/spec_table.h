// The spec table: what the spec's Changelog.md says of every version of every operator of the
// default domain, generated into spec_table.inc by scripts/gen_spec_table.py (the ctest
// spec_table.generated regenerates and compares it). One table for its three readers: the
// opset converter (convert/opset_schema.h), the precision converter (convert/convert_float.cc)
// and the test that each op file registers the spec's versions.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onnxtrim::ops {

// One row of spec_table.inc, as written (see its header for the syntax).
struct SpecRow {
  const char* domain;  // "" for the default domain
  const char* op;
  int since;
  bool deprecated;  // this version removes the op
  const char* attrs;
  const char* inputs;
  const char* outputs;
  const char* constraints;
};

// Every row, sorted by op then version.
std::span<const SpecRow> spec_rows();

// An input or output of a row.
struct SpecFormal {
  std::string name;
  bool optional = false;
  bool variadic = false;
  bool non_differentiable = false;
  std::string type;  // a type variable ("T") or a fixed type ("@int64")
};
std::vector<SpecFormal> parse_spec_formals(std::string_view s);

// The type constraints of a row: variable -> the types it admits ("float", "int64",
// "seq(tensor(float))"), in the spec's order.
std::map<std::string, std::vector<std::string>> parse_spec_constraints(std::string_view s);

// The versions in which (domain, op) appears in the table, ascending (deprecations included);
// empty when the table does not have the op.
std::vector<int> spec_versions(std::string_view domain, std::string_view op);

}  // namespace onnxtrim::ops
