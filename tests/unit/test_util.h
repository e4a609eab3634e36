// Helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ir/graph.h"
#include "ir/rewriter.h"
#include "onnx_io/onnx_io.h"
#include "../test_data.h"

namespace onnxtrim::test {

inline std::unique_ptr<ir::Model> parse(const std::string& text) {
  auto r = onnx_io::parse_text_model(text);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r) return nullptr;
  return std::move(r).value();
}

// The value `name` becomes an initializer holding t, and the node that made it (a placeholder
// Constant: large weights do not fit the text syntax) goes.
inline void set_weight(ir::Model& m, const std::string& name, ir::Tensor t) {
  ir::Rewriter rw(m);
  ir::Value* v = m.graph->find_value(name);
  ASSERT_NE(v, nullptr) << name;
  ir::Node* producer = v->producer();
  rw.make_constant(v, std::move(t));
  if (producer) rw.erase_node(producer);
  m.graph->purge();
}

// The ONNX backend test data (tests/test_data.h): ONNXTRIM_TEST_DATA from the environment, else
// the CMake option. A test that reads it checks test_data_missing() first.
inline std::string data_dir() { return test_data_dir(); }

// A fresh temporary directory, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace onnxtrim::test
