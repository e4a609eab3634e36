// Unit tests of src/ops/math's families (comparison, arithmetic, bitwise, logical, variadic,
// sign ops, float functions, activations, float classes) and Where: what each family's table
// registers, and the kernels' values at the edges (wrapping integers, NaN, strings, attributes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/registry.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"

namespace onnxtrim {
namespace {

using ir::RuntimeValue;
using ops::make_tensor;

// Runs `body` (one graph's nodes, inputs a and b as declared in `sig`) at opset `opset`.
Result<std::vector<RuntimeValue>> run_math(int opset, const std::string& sig, const std::string& body,
                                           const std::map<std::string, ir::Tensor>& feeds) {
  auto m = test::parse("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng " + sig + " { " +
                       body + " }");
  if (!m) return Status(ErrorCode::kInvalidModel, "parse failed");
  eval::Interpreter interp(*m);
  std::map<std::string, RuntimeValue> f;
  for (const auto& [k, v] : feeds) f[k] = RuntimeValue::of(v);
  return interp.run(f);
}

template <typename T>
std::vector<T> math_vals(const Result<std::vector<RuntimeValue>>& r, size_t i = 0) {
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r.is_ok()) return {};
  return r.value()[i].tensor.to_vector<T>();
}

std::vector<uint8_t> bools(const Result<std::vector<RuntimeValue>>& r) {
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r.is_ok()) return {};
  const ir::Tensor& t = r.value()[0].tensor;
  EXPECT_EQ(t.dtype(), ir::DataType::kBool);
  std::vector<uint8_t> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) std::memcpy(v.data(), t.data<uint8_t>(), v.size());
  return v;
}

ir::Tensor string_tensor(std::vector<int64_t> dims, std::vector<std::string> v) {
  ir::Tensor t(ir::DataType::kString, std::move(dims));
  t.strings() = std::move(v);
  return t;
}

ir::Tensor bool_tensor(std::vector<int64_t> dims, const std::vector<uint8_t>& v) {
  ir::Tensor t(ir::DataType::kBool, std::move(dims));
  if (!v.empty()) std::memcpy(t.mutable_bytes(), v.data(), v.size());
  return t;
}

// The values shape inference propagates to graph output 0, printed like "[N + 1,4]" ("none"
// when it propagates none).
std::string propagated(const std::string& sig, const std::string& body) {
  auto m = test::parse("<ir_version: 8, opset_import: [\"\" : 18]>\ng " + sig + " { " + body + " }");
  if (!m) return "parse failed";
  passes::InferOptions io;
  io.use_declared = false;
  passes::ShapeInference si(*m, io);
  Status st = si.run();
  if (!st.is_ok()) return "error: " + st.message();
  const ops::TypeInfo* f = si.facts(m->graph->outputs()[0]);
  if (!f || !f->values) return "none";
  std::string s = "[";
  for (size_t k = 0; k < f->values->size(); ++k) s += (k ? "," : "") + (*f->values)[k].str();
  return s + "]";
}

// ------------------------------------------------------------------ registrations

// What the op files registered before they became family tables: element-wise or not, the
// local folds by pass, a shape rule and type constraints for every op.
TEST(MathFamilies, TablesRegisterWhatTheOpFilesDid) {
  struct Expect {
    const char* op;
    bool elementwise;
    const char* fold_pass;  // nullptr: none
  };
  const Expect kOps[] = {
      {"Equal", true, nullptr},
      {"Less", true, nullptr},
      {"Greater", true, nullptr},
      {"LessOrEqual", true, nullptr},
      {"GreaterOrEqual", true, nullptr},
      {"Add", true, "eliminate_identity_elements"},
      {"Sub", true, "eliminate_identity_elements"},
      {"Mul", true, "eliminate_identity_elements"},
      {"Div", true, "eliminate_identity_elements"},
      {"BitwiseAnd", true, nullptr},
      {"BitwiseOr", true, nullptr},
      {"BitwiseXor", true, nullptr},
      {"BitwiseNot", true, nullptr},
      {"BitShift", true, nullptr},
      {"And", true, "eliminate_identity_elements"},
      {"Or", true, "eliminate_identity_elements"},
      {"Xor", true, nullptr},
      {"Not", true, "eliminate_idempotent_ops"},
      {"Max", true, nullptr},
      {"Min", true, nullptr},
      {"Sum", true, nullptr},
      {"Mean", true, nullptr},
      {"Abs", true, "eliminate_idempotent_ops"},
      {"Neg", true, "eliminate_idempotent_ops"},
      {"Relu", true, "eliminate_idempotent_ops"},
      {"Sign", true, "eliminate_idempotent_ops"},
      {"Exp", true, nullptr},
      {"Log", true, nullptr},
      {"Sqrt", true, nullptr},
      {"Tanh", true, nullptr},
      {"Acos", true, nullptr},
      {"Acosh", true, nullptr},
      {"Asin", true, nullptr},
      {"Asinh", true, nullptr},
      {"Atan", true, nullptr},
      {"Atanh", true, nullptr},
      {"Cos", true, nullptr},
      {"Cosh", true, nullptr},
      {"Sin", true, nullptr},
      {"Sinh", true, nullptr},
      {"Tan", true, nullptr},
      {"Erf", true, nullptr},
      {"Reciprocal", true, nullptr},
      {"Sigmoid", true, nullptr},
      {"Softplus", true, nullptr},
      {"Softsign", true, nullptr},
      {"HardSwish", true, nullptr},
      {"Mish", true, nullptr},
      {"Ceil", true, "eliminate_idempotent_ops"},
      {"Floor", true, "eliminate_idempotent_ops"},
      {"Round", true, "eliminate_idempotent_ops"},
      {"Celu", true, nullptr},
      {"Elu", true, nullptr},
      {"Gelu", true, nullptr},
      {"HardSigmoid", true, nullptr},
      {"LeakyRelu", true, nullptr},
      {"Selu", true, nullptr},
      {"ThresholdedRelu", true, nullptr},
      {"Shrink", false, nullptr},
      {"Swish", false, nullptr},
      {"IsInf", true, nullptr},
      {"IsNaN", true, nullptr},
  };
  const auto& reg = ops::OpRegistry::instance();
  const char* const kPasses[] = {"eliminate_identity_elements", "eliminate_idempotent_ops", "eliminate_nop_ops"};
  for (const Expect& e : kOps) {
    SCOPED_TRACE(e.op);
    const ops::OpSchema* s = reg.find_any("", e.op);
    ASSERT_NE(s, nullptr);
    EXPECT_NE(s->eval, nullptr);
    EXPECT_TRUE(s->deterministic);
    EXPECT_EQ(reg.has("", e.op, ops::OpProperty::kElementwise), e.elementwise);
    EXPECT_FALSE(reg.has("", e.op, ops::OpProperty::kCopiesElements));
    EXPECT_NE(ops::find_infer("", e.op), nullptr);
    EXPECT_NE(ops::find_types("", e.op), nullptr);
    for (const char* pass : kPasses)
      EXPECT_EQ(reg.find_folds("", e.op, pass).size(), e.fold_pass && std::string(pass) == e.fold_pass ? 1u : 0u)
          << pass;
  }
  // Type constraints per row: Equal takes strings and bools, Less does not; Sum only floats;
  // BitShift only unsigned; Erf's are the spec's (numbers); IsNaN's variable is T1.
  auto takes = [](const char* op, const char* var, ir::DataType t) {
    const ops::TypeConstraints* c = ops::find_types("", op);
    return c && c->sets.count(var) && (c->sets.at(var) & ops::type_bit(t)) != 0;
  };
  EXPECT_TRUE(takes("Equal", "T", ir::DataType::kString));
  EXPECT_TRUE(takes("Equal", "T", ir::DataType::kBool));
  EXPECT_FALSE(takes("Less", "T", ir::DataType::kBool));
  EXPECT_TRUE(takes("Less", "T", ir::DataType::kInt64));
  EXPECT_FALSE(takes("Sum", "T", ir::DataType::kInt64));
  EXPECT_TRUE(takes("Max", "T", ir::DataType::kInt64));
  EXPECT_FALSE(takes("BitShift", "T", ir::DataType::kInt32));
  EXPECT_TRUE(takes("Erf", "T", ir::DataType::kInt32));
  EXPECT_FALSE(takes("Exp", "T", ir::DataType::kInt32));
  EXPECT_TRUE(takes("IsNaN", "T1", ir::DataType::kFloat8E4M3FN));
  EXPECT_TRUE(takes("Shrink", "T", ir::DataType::kInt8));
  EXPECT_FALSE(takes("Shrink", "T", ir::DataType::kBFloat16));
  EXPECT_TRUE(ops::find_types("", "Max")->variadic);
  EXPECT_EQ(ops::find_types("", "Add")->vars, (std::vector<std::string>{"T", "T"}));
  EXPECT_EQ(ops::find_types("", "Neg")->vars, (std::vector<std::string>{"T"}));
}

// ------------------------------------------------------------------ shape rules with values

// The families' shape rules propagate the values of small integer (and bool) tensors: a dim is
// never negative, the symbolic max and min are decided from bounds, and a bool known everywhere
// absorbs the other operand of And/Or.
TEST(MathShapeRules, FamiliesPropagateValues) {
  const std::string sig = "(float[N, 3] x, bool[2] u) => (int64[2] y)";
  const std::string s = "s = Shape(x) ";
  EXPECT_EQ(propagated(sig, s + "c = Constant <value = int64[2] {1, 3}> () y = Add(s, c)"), "[N + 1,6]");
  EXPECT_EQ(propagated(sig, s + "c = Constant <value = int64[2] {1, 3}> () y = Sub(s, c)"), "[N - 1,0]");
  EXPECT_EQ(propagated(sig, s + "c = Constant <value = int64[2] {2, 3}> () y = Mul(s, c)"), "[2*N,9]");
  EXPECT_EQ(propagated(sig, s + "c = Constant <value = int64[2] {1, 3}> () y = Div(s, c)"), "[N,1]");
  EXPECT_EQ(propagated(sig, s + "c = Constant <value = int64[2] {0, 5}> () y = Max(s, c)"), "[N,5]");
  EXPECT_EQ(propagated(sig, s + "c = Constant <value = int64[2] {0, 5}> () y = Min(s, c)"), "[0,3]");
  EXPECT_EQ(propagated(sig, s + "y = Sum(s, s, s)"), "[3*N,9]");
  EXPECT_EQ(propagated(sig, s + "y = Neg(s)"), "[-N,-3]");
  EXPECT_EQ(propagated(sig, s + "n = Neg(s) y = Abs(n)"), "[N,3]");
  // Comparisons: decided where bounds decide them, on every element or none.
  const std::string sb = "(float[N, 3] x, bool[2] u) => (bool[2] y)";
  const std::string neg = "c = Constant <value = int64[2] {-1, 3}> () ";
  EXPECT_EQ(propagated(sb, s + neg + "y = Greater(s, c)"), "[1,0]");
  EXPECT_EQ(propagated(sb, s + neg + "y = GreaterOrEqual(s, c)"), "[1,1]");
  EXPECT_EQ(propagated(sb, s + neg + "y = Less(c, s)"), "[1,0]");
  EXPECT_EQ(propagated(sb, s + neg + "y = LessOrEqual(s, c)"), "[0,1]");  // N <= -1 is false: N >= 0
  EXPECT_EQ(propagated(sb, s + "c = Constant <value = int64[2] {2, 3}> () y = LessOrEqual(s, c)"),
            "none");  // N <= 2 is not decided
  EXPECT_EQ(propagated(sb, s + "y = LessOrEqual(s, s)"), "[1,1]");
  EXPECT_EQ(propagated(sb, s + neg + "y = Equal(s, c)"), "[0,1]");
  // Logical ops: known bools, and And/Or's absorbing element whatever u holds.
  const std::string known = s + neg + "k = Greater(s, c) ";  // [1, 0]
  EXPECT_EQ(propagated(sb, known + "y = Not(k)"), "[0,1]");
  EXPECT_EQ(propagated(sb, known + "t = Equal(s, s) y = Xor(k, t)"), "[0,1]");
  EXPECT_EQ(propagated(sb, known + "t = Equal(s, s) y = Or(u, t)"), "[1,1]");
  EXPECT_EQ(propagated(sb, known + "t = Equal(s, s) f = Not(t) y = And(f, u)"), "[0,0]");
  EXPECT_EQ(propagated(sb, known + "y = And(k, u)"), "none");
}

// ------------------------------------------------------------------ comparison

TEST(MathComparison, NumbersNaNAndStrings) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::map<std::string, ir::Tensor> f = {{"a", make_tensor<float>({4}, {1, 2, nan, 3})},
                                         {"b", make_tensor<float>({4}, {2, 2, nan, 1})}};
  const std::string sig = "(float[4] a, float[4] b) => (bool[4] y)";
  EXPECT_EQ(bools(run_math(19, sig, "y = Equal(a, b)", f)), (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(bools(run_math(13, sig, "y = Less(a, b)", f)), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(bools(run_math(13, sig, "y = Greater(a, b)", f)), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(bools(run_math(16, sig, "y = LessOrEqual(a, b)", f)), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(bools(run_math(16, sig, "y = GreaterOrEqual(a, b)", f)), (std::vector<uint8_t>{0, 1, 0, 1}));
  // Broadcast int64 against a scalar, beyond float's exact range.
  auto r = run_math(13, "(int64[3] a, int64 b) => (bool[3] y)", "y = Less(a, b)",
                    {{"a", make_tensor<int64_t>({3}, {(int64_t{1} << 53), (int64_t{1} << 53) + 1, -5})},
                     {"b", make_tensor<int64_t>({}, {(int64_t{1} << 53) + 1})}});
  EXPECT_EQ(bools(r), (std::vector<uint8_t>{1, 0, 1}));
  // Strings compare as std::string does.
  ir::Tensor sa(ir::DataType::kString, {3}), sb(ir::DataType::kString, {3});
  sa.strings() = {"a", "b", "ab"};
  sb.strings() = {"b", "b", "a"};
  const std::string ssig = "(string[3] a, string[3] b) => (bool[3] y)";
  EXPECT_EQ(bools(run_math(19, ssig, "y = Equal(a, b)", {{"a", sa}, {"b", sb}})), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(bools(run_math(16, ssig, "y = GreaterOrEqual(a, b)", {{"a", sa}, {"b", sb}})),
            (std::vector<uint8_t>{0, 1, 1}));
  // A string against a number is an error naming the op.
  auto bad = run_math(13, "(string[3] a, float[3] b) => (bool[3] y)", "y = Greater(a, b)",
                      {{"a", sa}, {"b", make_tensor<float>({3}, {1, 2, 3})}});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("Greater: bad string inputs"), std::string::npos) << bad.status().message();
}

// ------------------------------------------------------------------ arithmetic

TEST(MathArithmetic, IntegersWrapAndDivisionTruncates) {
  const std::string sig8 = "(int8[3] a, int8[3] b) => (int8[3] y)";
  std::map<std::string, ir::Tensor> f8 = {{"a", make_tensor<int8_t>({3}, {127, -128, 5})},
                                          {"b", make_tensor<int8_t>({3}, {1, 1, -3})}};
  EXPECT_EQ(math_vals<int8_t>(run_math(14, sig8, "y = Add(a, b)", f8)), (std::vector<int8_t>{-128, -127, 2}));
  EXPECT_EQ(math_vals<int8_t>(run_math(14, sig8, "y = Sub(a, b)", f8)), (std::vector<int8_t>{126, 127, 8}));
  EXPECT_EQ(math_vals<int8_t>(run_math(14, sig8, "y = Mul(a, b)", f8)), (std::vector<int8_t>{127, -128, -15}));
  auto r = run_math(14, "(int16[2] a, int16[2] b) => (int16[2] y)", "y = Mul(a, b)",
                    {{"a", make_tensor<int16_t>({2}, {300, -300})}, {"b", make_tensor<int16_t>({2}, {300, 300})}});
  EXPECT_EQ(math_vals<int16_t>(r), (std::vector<int16_t>{24464, -24464}));  // 90000 mod 2^16
  const int32_t lo = std::numeric_limits<int32_t>::min();
  r = run_math(
      14, "(int32[5] a, int32[5] b) => (int32[5] y)", "y = Div(a, b)",
      {{"a", make_tensor<int32_t>({5}, {-7, 7, lo, 9, -9})}, {"b", make_tensor<int32_t>({5}, {2, -2, -1, 0, 4})}});
  EXPECT_EQ(math_vals<int32_t>(r), (std::vector<int32_t>{-3, -3, lo, 0, -2}));
  // Floats in their type, with broadcasting.
  r = run_math(14, "(float[2, 2] a, float[2] b) => (float[2, 2] y)", "y = Div(a, b)",
               {{"a", make_tensor<float>({2, 2}, {1, 2, 3, 4})}, {"b", make_tensor<float>({2}, {2, 0})}});
  auto v = math_vals<float>(r);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 0.5f);
  EXPECT_TRUE(std::isinf(v[1]));
  EXPECT_EQ(v[2], 1.5f);
  EXPECT_TRUE(std::isinf(v[3]));
  // Inputs of two types are an error.
  EXPECT_FALSE(run_math(14, "(float[2] a, double[2] b) => (float[2] y)", "y = Add(a, b)",
                        {{"a", make_tensor<float>({2}, {1, 2})}, {"b", make_tensor<double>({2}, {1, 2})}})
                   .is_ok());
}

// ------------------------------------------------------------------ bitwise

TEST(MathBitwise, OperatorsNotAndShifts) {
  std::map<std::string, ir::Tensor> f = {{"a", make_tensor<int32_t>({3}, {12, -1, 5})},
                                         {"b", make_tensor<int32_t>({3}, {10, 7, 0})}};
  const std::string sig = "(int32[3] a, int32[3] b) => (int32[3] y)";
  EXPECT_EQ(math_vals<int32_t>(run_math(18, sig, "y = BitwiseAnd(a, b)", f)), (std::vector<int32_t>{8, 7, 0}));
  EXPECT_EQ(math_vals<int32_t>(run_math(18, sig, "y = BitwiseOr(a, b)", f)), (std::vector<int32_t>{14, -1, 5}));
  EXPECT_EQ(math_vals<int32_t>(run_math(18, sig, "y = BitwiseXor(a, b)", f)), (std::vector<int32_t>{6, -8, 5}));
  auto r = run_math(18, "(uint8[3] a) => (uint8[3] y)", "y = BitwiseNot(a)",
                    {{"a", make_tensor<uint8_t>({3}, {0, 255, 15})}});
  EXPECT_EQ(math_vals<uint8_t>(r), (std::vector<uint8_t>{255, 0, 240}));
  std::map<std::string, ir::Tensor> fs = {{"a", make_tensor<uint8_t>({4}, {1, 1, 128, 200})},
                                          {"b", make_tensor<uint8_t>({4}, {7, 8, 7, 3})}};
  const std::string ssig = "(uint8[4] a, uint8[4] b) => (uint8[4] y)";
  EXPECT_EQ(math_vals<uint8_t>(run_math(11, ssig, "y = BitShift <direction = \"LEFT\"> (a, b)", fs)),
            (std::vector<uint8_t>{128, 0, 0, 64}));
  EXPECT_EQ(math_vals<uint8_t>(run_math(11, ssig, "y = BitShift <direction = \"RIGHT\"> (a, b)", fs)),
            (std::vector<uint8_t>{0, 0, 1, 25}));
  // BitShift takes no signed integers; BitwiseAnd no floats.
  EXPECT_FALSE(run_math(11, "(int8[1] a, int8[1] b) => (int8[1] y)", "y = BitShift <direction = \"LEFT\"> (a, b)",
                        {{"a", make_tensor<int8_t>({1}, {1})}, {"b", make_tensor<int8_t>({1}, {1})}})
                   .is_ok());
  EXPECT_FALSE(run_math(18, "(float[1] a, float[1] b) => (float[1] y)", "y = BitwiseAnd(a, b)",
                        {{"a", make_tensor<float>({1}, {1})}, {"b", make_tensor<float>({1}, {1})}})
                   .is_ok());
}

// ------------------------------------------------------------------ logical

TEST(MathLogical, TruthTablesWithBroadcasting) {
  std::map<std::string, ir::Tensor> f = {{"a", bool_tensor({2, 2}, {0, 0, 1, 1})}, {"b", bool_tensor({2}, {0, 1})}};
  const std::string sig = "(bool[2, 2] a, bool[2] b) => (bool[2, 2] y)";
  EXPECT_EQ(bools(run_math(7, sig, "y = And(a, b)", f)), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(bools(run_math(7, sig, "y = Or(a, b)", f)), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(bools(run_math(7, sig, "y = Xor(a, b)", f)), (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(bools(run_math(1, "(bool[2] b) => (bool[2] y)", "y = Not(b)", {{"b", f.at("b")}})),
            (std::vector<uint8_t>{1, 0}));
  EXPECT_FALSE(run_math(7, "(int32[1] a, int32[1] b) => (int32[1] y)", "y = And(a, b)",
                        {{"a", make_tensor<int32_t>({1}, {1})}, {"b", make_tensor<int32_t>({1}, {1})}})
                   .is_ok());
}

// ------------------------------------------------------------------ variadic

TEST(MathVariadic, MaxMinSumMean) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::map<std::string, ir::Tensor> f = {{"a", make_tensor<float>({3}, {1, nan, 5})},
                                         {"b", make_tensor<float>({1}, {2})},
                                         {"c", make_tensor<float>({3}, {0, 1, 9})}};
  const std::string sig = "(float[3] a, float[1] b, float[3] c) => (float[3] y)";
  auto mx = math_vals<float>(run_math(13, sig, "y = Max(a, b, c)", f));
  ASSERT_EQ(mx.size(), 3u);
  EXPECT_EQ(mx[0], 2.0f);
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 9.0f);
  auto mn = math_vals<float>(run_math(13, sig, "y = Min(a, b, c)", f));
  ASSERT_EQ(mn.size(), 3u);
  EXPECT_EQ(mn[0], 0.0f);
  EXPECT_TRUE(std::isnan(mn[1]));
  EXPECT_EQ(mn[2], 2.0f);
  f["a"] = make_tensor<float>({3}, {1, 2, 4});
  EXPECT_EQ(math_vals<float>(run_math(13, sig, "y = Sum(a, b, c)", f)), (std::vector<float>{3, 5, 15}));
  EXPECT_EQ(math_vals<float>(run_math(13, sig, "y = Mean(a, b, c)", f)), (std::vector<float>{1, 5.0f / 3.0f, 5}));
  // One input is itself; integers wrap in Sum.
  EXPECT_EQ(math_vals<float>(run_math(13, "(float[3] c) => (float[3] y)", "y = Max(c)", {{"c", f.at("c")}})),
            (std::vector<float>{0, 1, 9}));
  auto r = run_math(13, "(int8[2] a, int8[2] b) => (int8[2] y)", "y = Sum(a, b)",
                    {{"a", make_tensor<int8_t>({2}, {100, -100})}, {"b", make_tensor<int8_t>({2}, {100, -100})}});
  EXPECT_EQ(math_vals<int8_t>(r), (std::vector<int8_t>{-56, 56}));
}

// ------------------------------------------------------------------ sign ops

TEST(MathSignOps, WrapAndNaN) {
  auto ri = [](const char* op) {
    return math_vals<int8_t>(run_math(14, "(int8[4] x) => (int8[4] y)", std::string("y = ") + op + "(x)",
                                      {{"x", make_tensor<int8_t>({4}, {-128, -3, 0, 7})}}));
  };
  EXPECT_EQ(ri("Abs"), (std::vector<int8_t>{-128, 3, 0, 7}));
  EXPECT_EQ(ri("Neg"), (std::vector<int8_t>{-128, 3, 0, -7}));
  EXPECT_EQ(ri("Relu"), (std::vector<int8_t>{0, 0, 0, 7}));
  EXPECT_EQ(ri("Sign"), (std::vector<int8_t>{-1, -1, 0, 1}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto s = math_vals<float>(
      run_math(13, "(float[3] x) => (float[3] y)", "y = Sign(x)", {{"x", make_tensor<float>({3}, {nan, -0.5f, 2})}}));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[1], -1.0f);
  EXPECT_EQ(s[2], 1.0f);
  // Abs takes unsigned integers; Neg does not.
  EXPECT_EQ(math_vals<uint8_t>(
                run_math(13, "(uint8[1] x) => (uint8[1] y)", "y = Abs(x)", {{"x", make_tensor<uint8_t>({1}, {200})}})),
            (std::vector<uint8_t>{200}));
  EXPECT_FALSE(
      run_math(13, "(uint8[1] x) => (uint8[1] y)", "y = Neg(x)", {{"x", make_tensor<uint8_t>({1}, {200})}}).is_ok());
}

// ------------------------------------------------------------------ float functions

TEST(MathFloatFunctions, ComputedInDoubleRoundedToTheType) {
  auto rf = [](int opset, const char* op, std::vector<float> x) {
    size_t n = x.size();
    std::string dims = std::to_string(n);
    return math_vals<float>(run_math(opset, "(float[" + dims + "] x) => (float[" + dims + "] y)",
                                     std::string("y = ") + op + "(x)",
                                     {{"x", make_tensor<float>({static_cast<int64_t>(n)}, x)}}));
  };
  EXPECT_EQ(rf(13, "Exp", {0, 1}), (std::vector<float>{1, static_cast<float>(std::exp(1.0))}));
  EXPECT_EQ(rf(13, "Sqrt", {4, 2}), (std::vector<float>{2, static_cast<float>(std::sqrt(2.0))}));
  EXPECT_EQ(rf(13, "Reciprocal", {4, -0.5f}), (std::vector<float>{0.25f, -2}));
  // Rounding: ties to even; Ceil and Floor.
  EXPECT_EQ(rf(22, "Round", {2.5f, -2.5f, 1.5f, 0.4f}), (std::vector<float>{2, -2, 2, 0}));
  EXPECT_EQ(rf(13, "Ceil", {1.2f, -1.2f}), (std::vector<float>{2, -1}));
  EXPECT_EQ(rf(13, "Floor", {1.2f, -1.2f}), (std::vector<float>{1, -2}));
  // No overflow at the far ends.
  EXPECT_EQ(rf(13, "Sigmoid", {-1000, 0, 1000}), (std::vector<float>{0, 0.5f, 1}));
  EXPECT_EQ(rf(22, "Softplus", {1000, -1000}), (std::vector<float>{1000, 0}));
  EXPECT_EQ(rf(22, "Softsign", {1, -3}), (std::vector<float>{0.5f, -0.75f}));
  EXPECT_EQ(rf(22, "HardSwish", {-4, 0, 1, 4}),
            (std::vector<float>{0, 0, static_cast<float>(1.0 * (1.0 / 6 + 0.5)), 4}));
  EXPECT_EQ(rf(22, "Mish", {0}), (std::vector<float>{0}));
  EXPECT_EQ(rf(22, "Atan", {1}), (std::vector<float>{static_cast<float>(std::atan(1.0))}));
  // Double stays double.
  auto r = run_math(13, "(double[1] x) => (double[1] y)", "y = Erf(x)", {{"x", make_tensor<double>({1}, {0.5})}});
  EXPECT_EQ(math_vals<double>(r), (std::vector<double>{std::erf(0.5)}));
  // Integers are refused by the kernel (Erf's constraint admits them; its kernel does not).
  EXPECT_FALSE(
      run_math(13, "(int32[1] x) => (int32[1] y)", "y = Erf(x)", {{"x", make_tensor<int32_t>({1}, {1})}}).is_ok());
}

// ------------------------------------------------------------------ activations

TEST(MathActivations, AttributesAndDefaults) {
  auto ra = [](int opset, const std::string& node, std::vector<float> x) {
    size_t n = x.size();
    std::string dims = std::to_string(n);
    return math_vals<float>(run_math(opset, "(float[" + dims + "] x) => (float[" + dims + "] y)", "y = " + node,
                                     {{"x", make_tensor<float>({static_cast<int64_t>(n)}, x)}}));
  };
  EXPECT_EQ(ra(22, "Elu(x)", {-1, 2}), (std::vector<float>{static_cast<float>(std::exp(-1.0) - 1.0), 2}));
  EXPECT_EQ(ra(22, "Elu <alpha = 2.0> (x)", {-1}),
            (std::vector<float>{static_cast<float>(2.0 * (std::exp(-1.0) - 1.0))}));
  EXPECT_EQ(ra(16, "LeakyRelu(x)", {-100, 3}), (std::vector<float>{static_cast<float>(0.01f * -100.0), 3}));
  EXPECT_EQ(ra(22, "HardSigmoid(x)", {-10, 0, 1, 10}),
            (std::vector<float>{0, 0.5f, static_cast<float>(0.2f + 0.5), 1}));
  EXPECT_EQ(ra(22, "ThresholdedRelu <alpha = 2.0> (x)", {2, 2.5f}), (std::vector<float>{0, 2.5f}));
  EXPECT_EQ(ra(9, "Shrink <lambd = 1.0, bias = 0.5> (x)", {-2, -1, 0.5f, 3}), (std::vector<float>{-1.5f, 0, 0, 2.5f}));
  EXPECT_EQ(ra(24, "Swish <alpha = 0.0> (x)", {4, -2}), (std::vector<float>{2, -1}));
  EXPECT_EQ(ra(12, "Celu(x)", {-1, 3}), (std::vector<float>{static_cast<float>(std::exp(-1.0) - 1.0), 3}));
  const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
  EXPECT_EQ(
      ra(22, "Selu(x)", {-1, 1}),
      (std::vector<float>{static_cast<float>(gamma * (alpha * std::exp(-1.0) - alpha)), static_cast<float>(gamma)}));
  EXPECT_EQ(ra(20, "Gelu(x)", {1}),
            (std::vector<float>{static_cast<float>(0.5 * (1.0 + std::erf(1.0 / std::sqrt(2.0))))}));
  EXPECT_EQ(
      ra(20, "Gelu <approximate = \"tanh\"> (x)", {1}),
      (std::vector<float>{static_cast<float>(0.5 * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (1.0 + 0.044715))))}));
}

// ------------------------------------------------------------------ float classes

TEST(MathFloatClasses, InfinitiesBySignAndNaN) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::map<std::string, ir::Tensor> f = {{"x", make_tensor<float>({4}, {inf, -inf, nan, 1})}};
  const std::string sig = "(float[4] x) => (bool[4] y)";
  EXPECT_EQ(bools(run_math(20, sig, "y = IsInf(x)", f)), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(bools(run_math(20, sig, "y = IsInf <detect_negative = 0> (x)", f)), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(bools(run_math(20, sig, "y = IsInf <detect_positive = 0> (x)", f)), (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(bools(run_math(20, sig, "y = IsNaN(x)", f)), (std::vector<uint8_t>{0, 0, 1, 0}));
  auto bad = run_math(20, "(int32[1] x) => (bool[1] y)", "y = IsNaN(x)", {{"x", make_tensor<int32_t>({1}, {1})}});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("IsNaN on"), std::string::npos) << bad.status().message();
}

// ------------------------------------------------------------------ where

// Operands of the output's shape or of one element go by the direct path, others by broadcast
// indexing: the same picks either way, for every element width and for strings.
TEST(WhereOp, DirectAndBroadcastPathsPickAlike) {
  const std::vector<uint8_t> c = {1, 0, 0, 1, 1, 0};
  ir::Tensor c23(ir::DataType::kBool, {2, 3});
  std::memcpy(c23.mutable_bytes(), c.data(), 6);
  // Full x, scalar y (the direct path).
  auto r = run_math(
      17, "(bool[2, 3] c, float[2, 3] x, float y) => (float[2, 3] z)", "z = Where(c, x, y)",
      {{"c", c23}, {"x", make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"y", make_tensor<float>({}, {-1})}});
  EXPECT_EQ(math_vals<float>(r), (std::vector<float>{1, -1, -1, 4, 5, -1}));
  // Scalar x and y, 8-byte elements.
  r = run_math(17, "(bool[2, 3] c, int64 x, int64 y) => (int64[2, 3] z)", "z = Where(c, x, y)",
               {{"c", c23}, {"x", make_tensor<int64_t>({}, {7})}, {"y", make_tensor<int64_t>({}, {-9})}});
  EXPECT_EQ(math_vals<int64_t>(r), (std::vector<int64_t>{7, -9, -9, 7, 7, -9}));
  // 2-byte elements, condition a single element.
  ir::Tensor c1(ir::DataType::kBool, {1});
  c1.mutable_bytes()[0] = 0;
  r = run_math(17, "(bool[1] c, int16[3] x, int16[3] y) => (int16[3] z)", "z = Where(c, x, y)",
               {{"c", c1}, {"x", make_tensor<int16_t>({3}, {1, 2, 3})}, {"y", make_tensor<int16_t>({3}, {4, 5, 6})}});
  EXPECT_EQ(math_vals<int16_t>(r), (std::vector<int16_t>{4, 5, 6}));
  // A row broadcast along the first axis (broadcast indexing), 1-byte elements.
  r = run_math(
      17, "(bool[2, 3] c, uint8[3] x, uint8[2, 1] y) => (uint8[2, 3] z)", "z = Where(c, x, y)",
      {{"c", c23}, {"x", make_tensor<uint8_t>({3}, {10, 20, 30})}, {"y", make_tensor<uint8_t>({2, 1}, {1, 2})}});
  EXPECT_EQ(math_vals<uint8_t>(r), (std::vector<uint8_t>{10, 1, 1, 10, 20, 2}));
  // Strings.
  r = run_math(
      17, "(bool[2, 3] c, string x, string[2, 3] y) => (string[2, 3] z)", "z = Where(c, x, y)",
      {{"c", c23}, {"x", string_tensor({}, {"a"})}, {"y", string_tensor({2, 3}, {"p", "q", "r", "s", "t", "u"})}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].tensor.strings(), (std::vector<std::string>{"a", "q", "r", "a", "a", "u"}));
}

}  // namespace
}  // namespace onnxtrim
