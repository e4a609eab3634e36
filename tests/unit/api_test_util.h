// Helpers shared by the tests of the public C++ API (include/onnxtrim/onnxtrim.hpp).
#pragma once

#include <gtest/gtest.h>

#include "ir/graph.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim::test {

// A run's result model and its report.
struct Converted {
  Model model;
  Report report;
};

// The public Model of an IR model (serialized and parsed again).
inline Model public_model(const ir::Model& m) {
  auto bytes = onnx_io::serialize_model(m);
  EXPECT_TRUE(bytes.is_ok());
  return Model::parse(bytes.value().data(), bytes.value().size());
}

}  // namespace onnxtrim::test
