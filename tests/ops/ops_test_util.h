// Helpers shared by the op tests (tests/ops/<family>_test.cc): run a model in the ONNX text
// syntax through the evaluator, and read its outputs.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "eval/interpreter.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "../unit/test_util.h"

namespace onnxtrim::test {

// The outputs of `text`'s model on `feeds`.
inline Result<std::vector<ir::RuntimeValue>> run(const std::string& text,
                                                 const std::map<std::string, ir::Tensor>& feeds) {
  auto m = parse(text);
  if (!m) return Status(ErrorCode::kInvalidModel, "parse failed");
  eval::Interpreter interp(*m);
  std::map<std::string, ir::RuntimeValue> f;
  for (const auto& [k, v] : feeds) f[k] = ir::RuntimeValue::of(v);
  return interp.run(f);
}

// The elements of output i (empty, and a failure, when the run failed).
template <typename T>
std::vector<T> vals(const Result<std::vector<ir::RuntimeValue>>& r, size_t i = 0) {
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r.is_ok()) return {};
  return r.value()[i].tensor.to_vector<T>();
}

// The dims of output i ({-1} when the run failed).
inline ops::Dims dims(const Result<std::vector<ir::RuntimeValue>>& r, size_t i = 0) {
  if (!r.is_ok()) return {-1};
  return r.value()[i].tensor.dims();
}

// A string tensor.
inline ir::Tensor strings(std::vector<int64_t> d, std::vector<std::string> v) {
  ir::Tensor t(ir::DataType::kString, std::move(d));
  t.strings() = std::move(v);
  return t;
}

inline void expect_near(const std::vector<float>& a, const std::vector<float>& b, float tol = 1e-5f) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "element " << i;
}

// The shapes shape inference gives `text`'s graph outputs, without reading their declared types:
// "[batch,n,2]" per output, space-separated; "?" for an output without a shape.
inline std::string inferred(const std::string& text) {
  auto m = parse(text);
  if (!m) return "parse failed";
  passes::InferOptions io;
  io.use_declared = false;
  passes::ShapeInference si(*m, io);
  Status st = si.run();
  if (!st.is_ok()) return "error: " + st.message();
  std::string out;
  for (const ir::Value* v : m->graph->outputs()) {
    const ops::TypeInfo* f = si.facts(v);
    std::string s = "?";
    if (f && f->shape) {
      s = "[";
      for (size_t k = 0; k < f->shape->size(); ++k) s += (k ? "," : "") + (*f->shape)[k].str();
      s += "]";
    }
    out += (out.empty() ? "" : " ") + s;
  }
  return out;
}

}  // namespace onnxtrim::test
