// The spec table (src/ops/spec_table.inc, generated from Changelog.md): every op file of the
// default domain registers exactly the versions the table lists for its op, and the table's
// readers parse its rows as the spec states them.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "convert/opset_schema.h"
#include "ops/registry.h"
#include "ops/spec_table.h"

namespace onnxtrim {
namespace {

std::string list(const std::vector<int>& v) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return "{" + os.str() + "}";
}

// Versions of the spec an op file leaves out on purpose, each with the reason.
struct Unregistered {
  const char* op;
  int version;
  const char* why;
};
constexpr Unregistered kUnregistered[] = {
    {"Upsample", 1,
     "experimental in the spec (height_scale/width_scale attributes, \"no versioning maintained for experimental "
     "ops\"): no kernel; a model at opset < 7 gets none for it"},
};

TEST(SpecTable, OpFilesRegisterTheSpecsVersions) {
  std::vector<std::string> mismatches;
  int checked = 0;
  for (const ops::OpSchema* s : ops::OpRegistry::instance().all()) {
    if (!s->domain.empty() && s->domain != "ai.onnx") continue;
    std::vector<int> spec = ops::spec_versions("", s->op_type);
    if (spec.empty()) {
      mismatches.push_back(s->op_type + ": registered " + list(s->versions) + ", not in the spec table");
      continue;
    }
    ++checked;
    for (const Unregistered& u : kUnregistered)
      if (s->op_type == u.op) std::erase(spec, u.version);
    if (s->versions != spec)
      mismatches.push_back(s->op_type + ": registered " + list(s->versions) + ", the spec's " + list(spec));
  }
  EXPECT_GT(checked, 150);
  std::string report;
  for (const std::string& m : mismatches) report += "\n  " + m;
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " op file(s) disagree with src/ops/spec_table.inc:" << report;
}

TEST(SpecTable, RowsAreSortedAndParsed) {
  auto rows = ops::spec_rows();
  ASSERT_GT(rows.size(), 600u);
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::string a = rows[i - 1].op, b = rows[i].op;
    EXPECT_TRUE(a < b || (a == b && rows[i - 1].since < rows[i].since))
        << a << "-" << rows[i - 1].since << " then " << b;
  }
  EXPECT_EQ(ops::spec_versions("", "Add"), (std::vector<int>{1, 6, 7, 13, 14}));
  EXPECT_TRUE(ops::spec_versions("", "NoSuchOp").empty());
  // ArgMax-13: data is T, reduced a fixed int64 output; both non-differentiable.
  const ops::SpecRow* argmax = nullptr;
  for (const ops::SpecRow& r : rows)
    if (std::string(r.op) == "ArgMax" && r.since == 13) argmax = &r;
  ASSERT_NE(argmax, nullptr);
  auto ins = ops::parse_spec_formals(argmax->inputs);
  auto outs = ops::parse_spec_formals(argmax->outputs);
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_EQ(ins[0].name, "data");
  EXPECT_EQ(ins[0].type, "T");
  EXPECT_TRUE(ins[0].non_differentiable);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].type, "@int64");
  auto c = ops::parse_spec_constraints(argmax->constraints);
  ASSERT_EQ(c.count("T"), 1u);
  EXPECT_EQ(c["T"].back(), "bfloat16");
  // The opset converter reads the same rows: Concat-13's inputs are variadic, Clip-11's bounds
  // optional.
  const convert::OpVersion* concat = convert::at("Concat", 13);
  ASSERT_NE(concat, nullptr);
  EXPECT_EQ(concat->max_inputs(), -1);
  const convert::OpVersion* clip = convert::at("Clip", 11);
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->min_inputs(), 1u);
  EXPECT_EQ(clip->max_inputs(), 3);
}

}  // namespace
}  // namespace onnxtrim
