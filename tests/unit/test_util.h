// Helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ir/graph.h"
#include "onnx_io/onnx_io.h"

namespace onnxtrim::test {

inline std::unique_ptr<ir::Model> parse(const std::string& text) {
  auto r = onnx_io::parse_text_model(text);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (!r) return nullptr;
  return std::move(r).value();
}

inline std::string data_dir() { return ONNXTRIM_TEST_DATA; }

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
